//! One colour per strategy, the same in every chart and every command: the standard strategies
//! and the presets each have their own (a preset whatever its parameters), anything else takes
//! one of the rest by a stable hash of its canonical name. A series named after several
//! strategies (lines that coincide) takes its first's.

use ctxbench_compact::compact::{PRESETS, Strategy};

use crate::settings::STANDARD_STRATEGIES;

/// The standard strategies' colours, in their order (Okabe–Ito's seven, then three of Paul
/// Tol's muted scheme, all told apart by colour-blind readers).
const STANDARD: [(u8, u8, u8); 10] = [
    (0, 0, 0),       // none: black, the baseline
    (230, 159, 0),   // truncate
    (0, 114, 178),   // drop
    (213, 94, 0),    // truncate+drop
    (0, 158, 115),   // summarize
    (204, 121, 167), // truncate+summarize
    (86, 180, 233),  // mask
    (136, 34, 85),   // mask+drop
    (153, 153, 51),  // window
    (51, 34, 136),   // clear-tool-uses
];

/// The presets' colours, in the order of [`PRESETS`] (Paul Tol's bright, vibrant, light and
/// muted schemes, none a standard strategy's); a preset past these takes one of [`OTHERS`].
const PRESET: [(u8, u8, u8); 13] = [
    (68, 119, 170),  // anthropic-compact
    (102, 204, 238), // anthropic-clear
    (34, 136, 51),   // anthropic-clear-thinking
    (204, 187, 68),  // openai-compact
    (119, 170, 221), // codex
    (170, 51, 119),  // claude-code
    (0, 153, 136),   // openhands
    (238, 119, 51),  // langchain-summarization
    (204, 51, 17),   // langchain-clear
    (238, 51, 119),  // adk
    (136, 204, 238), // swe-agent-mask
    (221, 204, 119), // swe-agent-summary
    (170, 68, 153),  // swe-agent-hybrid
];

/// The colours left for other strategies and series.
const OTHERS: [(u8, u8, u8); 8] = [
    (68, 170, 153),
    (187, 85, 102),
    (0, 68, 136),
    (221, 170, 51),
    (17, 119, 51),
    (102, 51, 0),
    (119, 119, 119),
    (238, 102, 119),
];

/// The colour of a series, by its name (a strategy's canonical or short name, or a list of
/// them joined by ", ").
pub fn colour(name: &str) -> (u8, u8, u8) {
    let first = name.split(", ").next().unwrap_or(name);
    let parsed = first.parse::<Strategy>().ok();
    if let Some(preset) = parsed.as_ref().and_then(|s| s.preset.as_ref()) {
        if let Some(k) = PRESETS.iter().position(|p| p.name == preset.name()) {
            if let Some(&c) = PRESET.get(k) {
                return c;
            }
        }
    }
    let canonical = parsed.map_or_else(|| first.to_owned(), |s| s.to_string());
    let standard = STANDARD_STRATEGIES
        .iter()
        .position(|s| s.parse::<Strategy>().is_ok_and(|s| s.to_string() == canonical));
    match standard {
        Some(k) => STANDARD[k],
        None => OTHERS[(fnv1a(&canonical) % OTHERS.len() as u64) as usize],
    }
}

/// `#rrggbb`, as SVG writes it.
pub fn hex(name: &str) -> String {
    let (r, g, b) = colour(name);
    format!("#{r:02X}{g:02X}{b:02X}")
}

/// FNV-1a: a hash that is the same in every build and on every machine.
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_strategy_has_one_colour_whatever_its_spelling() {
        assert_eq!(colour("truncate"), colour("truncate:preview=150,trigger=threshold"));
        assert_eq!(colour("drop, mask+drop"), colour("drop"));
        let standard: Vec<_> = STANDARD_STRATEGIES.iter().map(|s| colour(s)).collect();
        for (k, c) in standard.iter().enumerate() {
            assert!(!standard[..k].contains(c), "{} shares a colour", STANDARD_STRATEGIES[k]);
        }
        // Others never take a standard strategy's colour, and keep theirs from run to run.
        let other = colour("mask:m=3+drop");
        assert!(!standard.contains(&other));
        assert_eq!(other, colour("mask:m=3,trigger=threshold+drop"));
        assert_eq!(hex("none"), "#000000");
    }

    #[test]
    fn every_preset_has_a_colour_of_its_own() {
        assert_eq!(PRESETS.len(), PRESET.len(), "a colour for each preset");
        let mut seen: Vec<_> = STANDARD_STRATEGIES.iter().map(|s| colour(s)).collect();
        for p in PRESETS {
            let c = colour(p.name);
            assert!(!seen.contains(&c), "{} shares a colour", p.name);
            seen.push(c);
        }
        assert_eq!(colour("codex"), colour("codex:carry=10000"), "whatever its parameters");
    }
}
