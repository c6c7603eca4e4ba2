//! The cache waste chart (DESIGN §23): for each configuration of a scenario's verdict that
//! completed, the cached tokens its compactions invalidated against the cache writes no later
//! call read, both as means over the seeds; the closer to the corner, the less a strategy's
//! compactions throw away of what the cache held or was paid to hold.

use super::chart::{Chart, Label, Series, Style, Whisker};
use super::kinds::{Missing, WASTE};
use crate::verdict::{Figure, Verdict};

/// The waste chart of one scenario's verdict; not drawn (and why) when no configuration that
/// completed wasted any cache.
pub fn waste_chart(verdict: &Verdict<'_>) -> Result<Chart, Missing> {
    let scenario = verdict.scenario;
    let mut chart = Chart::new(
        scenario,
        WASTE.name(scenario, &[]),
        format!("{scenario}: cache thrown away by compactions"),
        "cached tokens invalidated (mean over seeds)",
        "cache writes never read, in tokens (mean over seeds)",
    );
    let mut points = Vec::new();
    for group in verdict.groups() {
        let c = group.lead();
        if !c.completed() {
            continue;
        }
        let invalidated = c.mean(Figure::Invalidated);
        let unread = c.mean(Figure::WrittenUnread);
        let at = (invalidated.mean, unread.mean);
        points.push(at);
        chart.whiskers.push(Whisker {
            at,
            x: (invalidated.low.max(0.0), invalidated.high),
            y: (unread.low.max(0.0), unread.high),
        });
        chart.labels.push(Label {
            at,
            text: c.settings().strategy.brief(),
        });
    }
    if points.iter().all(|&(x, y)| x == 0.0 && y == 0.0) {
        return Err(Missing::new(
            scenario,
            WASTE,
            format!(
                "On {scenario}, no configuration that completed invalidated a cached token or left a cache write \
                 unread: no chart of cache waste."
            ),
        ));
    }
    chart.series.push(Series {
        name: "configurations that completed".into(),
        points,
        style: Style::Points,
    });
    Ok(chart)
}
