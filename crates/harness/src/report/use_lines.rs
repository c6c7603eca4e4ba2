//! A configuration as the code that constructs it, in Python (the `ctxbench` package) and in Rust
//! (`ctxbench-compact`): what `verdict.json` and the page give for each pick. Only what differs
//! from the library's defaults is spelt, so the line reads as the verdict does.

use ctxbench_compact::Policy;
use ctxbench_compact::tokens::{CounterKind, Estimator};

use crate::settings::RunSettings;
use crate::verdict::{Config, Verdict};

/// The lines that construct a run's compactor: `(python, rust)`. The Python line is `None` for
/// an estimator the package does not offer (`usage`). The Rust line compiles as it is:
///
/// ```
/// use ctxbench_compact::tokens::Estimator;
/// use ctxbench_compact::{Compactor, CounterKind, Policy};
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let compactor = Compactor::new("truncate:trigger=cold+drop".parse()?, Policy { target: Some(0.4), keep_recent_turns: 3, ..Policy::new(128000) }, "o200k".parse::<Estimator>()?.counter());
/// let plain = Compactor::new("truncate+drop".parse()?, Policy::new(6000), CounterKind::Chars4.counter());
/// # assert_eq!((compactor.limit(), plain.limit()), (102_400, 4_800));
/// # Ok(())
/// # }
/// ```
pub fn use_lines(settings: &RunSettings, window: impl std::fmt::Display) -> (Option<String>, String) {
    let strategy = settings.strategy.brief();
    let target = settings.target.filter(|t| *t != settings.threshold);
    let mut python = vec![format!("{strategy:?}"), format!("window={window}")];
    let mut rust = Vec::new();
    if settings.threshold != Policy::DEFAULT_THRESHOLD {
        python.push(format!("threshold={}", settings.threshold));
        rust.push(format!("threshold: {:?}", settings.threshold));
    }
    if let Some(target) = target {
        python.push(format!("target={target}"));
        rust.push(format!("target: Some({target:?})"));
    }
    if settings.keep_recent_turns != Policy::DEFAULT_KEEP {
        python.push(format!("keep={}", settings.keep_recent_turns));
        rust.push(format!("keep_recent_turns: {}", settings.keep_recent_turns));
    }
    if settings.reply_reserve != Policy::DEFAULT_REPLY_RESERVE {
        python.push(format!("reply_reserve={}", settings.reply_reserve));
        rust.push(format!("reply_reserve: {}", settings.reply_reserve));
    }
    let (estimator_py, estimator_rs) = match settings.estimator {
        Estimator::Counter(CounterKind::Chars4) => (Some(None), "CounterKind::Chars4.counter()".to_owned()),
        Estimator::Counter(kind) => (
            Some(Some(format!("estimator={:?}", kind.as_str()))),
            format!("{:?}.parse::<Estimator>()?.counter()", kind.as_str()),
        ),
        Estimator::Usage => (None, "Estimator::Usage.counter()".to_owned()),
    };
    let policy = if rust.is_empty() {
        format!("Policy::new({window})")
    } else {
        format!("Policy {{ {}, ..Policy::new({window}) }}", rust.join(", "))
    };
    let rust = format!("Compactor::new({strategy:?}.parse()?, {policy}, {estimator_rs})");
    let python = estimator_py.map(|extra| {
        python.extend(extra);
        format!("Compactor({})", python.join(", "))
    });
    (python, rust)
}

/// The lines that construct a verdict's pick, at the window it ran (its rows' settings are
/// resolved against the scenario).
pub(super) fn pick_lines(pick: &Config<'_>) -> (Option<String>, String) {
    let settings = pick.settings();
    use_lines(settings, settings.window.unwrap_or_default())
}

/// The page's lines under a scenario's verdict: how to construct its pick (none without one).
pub(super) fn use_html(v: &Verdict<'_>, escape: impl Fn(&str) -> String) -> String {
    let Some(pick) = v.pick() else {
        return String::new();
    };
    let (python, rust) = pick_lines(pick);
    let python = python.map_or(String::new(), |p| format!("Python: <code>{}</code><br>", escape(&p)));
    format!(
        "<p class=\"use\">Use it. {python}Rust: <code>{}</code></p>\n",
        escape(&rust)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(strategy: &str) -> RunSettings {
        RunSettings::new(strategy.parse().expect("a strategy"))
    }

    #[test]
    fn only_what_differs_from_the_defaults_is_spelt() {
        let (python, rust) = use_lines(&settings("truncate+drop"), 6000);
        assert_eq!(python.as_deref(), Some(r#"Compactor("truncate+drop", window=6000)"#));
        assert_eq!(
            rust,
            r#"Compactor::new("truncate+drop".parse()?, Policy::new(6000), CounterKind::Chars4.counter())"#
        );
        let tuned = RunSettings {
            target: Some(0.4),
            keep_recent_turns: 3,
            estimator: Estimator::Counter(CounterKind::O200k),
            ..settings("truncate:trigger=cold+drop")
        };
        let (python, rust) = use_lines(&tuned, 128_000);
        assert_eq!(
            python.as_deref(),
            Some(r#"Compactor("truncate:trigger=cold+drop", window=128000, target=0.4, keep=3, estimator="o200k")"#)
        );
        assert_eq!(
            rust,
            r#"Compactor::new("truncate:trigger=cold+drop".parse()?, Policy { target: Some(0.4), keep_recent_turns: 3, ..Policy::new(128000) }, "o200k".parse::<Estimator>()?.counter())"#
        );
        let at_threshold = RunSettings {
            target: Some(0.8),
            ..settings("drop")
        };
        assert_eq!(
            use_lines(&at_threshold, 10).0.as_deref(),
            Some(r#"Compactor("drop", window=10)"#)
        );
        let usage = RunSettings {
            estimator: Estimator::Usage,
            ..settings("drop")
        };
        assert_eq!(use_lines(&usage, 10).0, None);
    }
}
