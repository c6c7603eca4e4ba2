//! How likely a simulated summary keeps a fact, by kind: the scripted model's assumptions, echoed
//! with every results file.

use ctxbench_compact::fact::FactKind;

/// The probability that a summary keeps a fact of a kind it was told to keep (a parameter of
/// the simulation, not a measurement).
pub const KEPT_WHEN_TOLD: f64 = 0.9;

/// The probability that a summary keeps a fact of `kind` when not told to keep it. From a
/// published study of 43 real compactions (decision, path, number, command); `id` and `detail`
/// are assumed equal to `number`.
pub fn kept_untold(kind: FactKind) -> f64 {
    match kind {
        FactKind::Decision => 0.77,
        FactKind::Path => 0.098,
        FactKind::Number | FactKind::Id | FactKind::Detail => 0.019,
        FactKind::Command => 0.002,
    }
}
