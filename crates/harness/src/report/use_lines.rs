//! A configuration as the code that constructs it, in Python (the `ctxbench` package), in Node
//! (the npm package `ctxbench`) and in Rust (`ctxbench-compact`): what `verdict.json` and the
//! page give for each pick. Only what differs from the library's defaults is spelt, so the line
//! reads as the verdict does.

use ctxbench_compact::Policy;
use ctxbench_compact::tokens::{CounterKind, Estimator};

use crate::settings::RunSettings;
use crate::verdict::{Config, Verdict};

/// The lines that construct one configuration's compactor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UseLines {
    /// `Compactor("drop", window=8000)`; `None` for an estimator the package does not offer
    /// (`usage`: the package sees no server's counts).
    pub python: Option<String>,
    /// `new Compactor("drop", { window: 8000 })`; `None` where the Python line is.
    pub node: Option<String>,
    /// `Compactor::new("drop".parse()?, Policy::new(8000), CounterKind::Chars4.counter())`.
    pub rust: String,
}

/// The lines that construct a run's compactor. The Rust line compiles as it is:
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
pub fn use_lines(settings: &RunSettings, window: impl std::fmt::Display) -> UseLines {
    let strategy = settings.strategy.brief();
    let target = settings.target.filter(|t| *t != settings.threshold);
    // Each option as (Python's name, Node's name, its value as both spell it).
    let mut options = vec![("window", "window", window.to_string())];
    let mut rust = Vec::new();
    if settings.threshold != Policy::DEFAULT_THRESHOLD {
        options.push(("threshold", "threshold", settings.threshold.to_string()));
        rust.push(format!("threshold: {:?}", settings.threshold));
    }
    if let Some(target) = target {
        options.push(("target", "target", target.to_string()));
        rust.push(format!("target: Some({target:?})"));
    }
    if settings.keep_recent_turns != Policy::DEFAULT_KEEP {
        options.push(("keep", "keep", settings.keep_recent_turns.to_string()));
        rust.push(format!("keep_recent_turns: {}", settings.keep_recent_turns));
    }
    if settings.reply_reserve != Policy::DEFAULT_REPLY_RESERVE {
        options.push(("reply_reserve", "replyReserve", settings.reply_reserve.to_string()));
        rust.push(format!("reply_reserve: {}", settings.reply_reserve));
    }
    let (offered, estimator_rs) = match settings.estimator {
        Estimator::Counter(CounterKind::Chars4) => (true, "CounterKind::Chars4.counter()".to_owned()),
        Estimator::Counter(kind) => {
            options.push(("estimator", "estimator", format!("{:?}", kind.as_str())));
            (true, format!("{:?}.parse::<Estimator>()?.counter()", kind.as_str()))
        }
        Estimator::Usage => (false, "Estimator::Usage.counter()".to_owned()),
    };
    let policy = if rust.is_empty() {
        format!("Policy::new({window})")
    } else {
        format!("Policy {{ {}, ..Policy::new({window}) }}", rust.join(", "))
    };
    let python = options.iter().map(|(py, _, value)| format!("{py}={value}"));
    let node = options.iter().map(|(_, js, value)| format!("{js}: {value}"));
    UseLines {
        python: offered.then(|| format!("Compactor({strategy:?}, {})", python.collect::<Vec<_>>().join(", "))),
        node: offered.then(|| {
            format!(
                "new Compactor({strategy:?}, {{ {} }})",
                node.collect::<Vec<_>>().join(", ")
            )
        }),
        rust: format!("Compactor::new({strategy:?}.parse()?, {policy}, {estimator_rs})"),
    }
}

/// The lines that construct a verdict's pick, at the window it ran (its rows' settings are
/// resolved against the scenario).
pub(super) fn pick_lines(pick: &Config<'_>) -> UseLines {
    let settings = pick.settings();
    use_lines(settings, settings.window.unwrap_or_default())
}

/// The page's lines under a scenario's verdict: how to construct its pick (none without one).
pub(super) fn use_html(v: &Verdict<'_>, escape: impl Fn(&str) -> String) -> String {
    let Some(pick) = v.pick() else {
        return String::new();
    };
    let lines = pick_lines(pick);
    let python = lines
        .python
        .map_or(String::new(), |p| format!("Python: <code>{}</code><br>", escape(&p)));
    let node = lines
        .node
        .map_or(String::new(), |n| format!("Node: <code>{}</code><br>", escape(&n)));
    format!(
        "<p class=\"use\">Use it. {python}{node}Rust: <code>{}</code></p>\n",
        escape(&lines.rust)
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
        let plain = use_lines(&settings("truncate+drop"), 6000);
        assert_eq!(
            plain.python.as_deref(),
            Some(r#"Compactor("truncate+drop", window=6000)"#)
        );
        assert_eq!(
            plain.node.as_deref(),
            Some(r#"new Compactor("truncate+drop", { window: 6000 })"#)
        );
        assert_eq!(
            plain.rust,
            r#"Compactor::new("truncate+drop".parse()?, Policy::new(6000), CounterKind::Chars4.counter())"#
        );
        let tuned = RunSettings {
            target: Some(0.4),
            keep_recent_turns: 3,
            reply_reserve: 500,
            estimator: Estimator::Counter(CounterKind::O200k),
            ..settings("truncate:trigger=cold+drop")
        };
        let tuned = use_lines(&tuned, 128_000);
        assert_eq!(
            tuned.python.as_deref(),
            Some(
                r#"Compactor("truncate:trigger=cold+drop", window=128000, target=0.4, keep=3, reply_reserve=500, estimator="o200k")"#
            )
        );
        assert_eq!(
            tuned.node.as_deref(),
            Some(
                r#"new Compactor("truncate:trigger=cold+drop", { window: 128000, target: 0.4, keep: 3, replyReserve: 500, estimator: "o200k" })"#
            )
        );
        assert_eq!(
            tuned.rust,
            r#"Compactor::new("truncate:trigger=cold+drop".parse()?, Policy { target: Some(0.4), keep_recent_turns: 3, reply_reserve: 500, ..Policy::new(128000) }, "o200k".parse::<Estimator>()?.counter())"#
        );
        let at_threshold = RunSettings {
            target: Some(0.8),
            ..settings("drop")
        };
        assert_eq!(
            use_lines(&at_threshold, 10).node.as_deref(),
            Some(r#"new Compactor("drop", { window: 10 })"#)
        );
        let usage = use_lines(
            &RunSettings {
                estimator: Estimator::Usage,
                ..settings("drop")
            },
            10,
        );
        assert_eq!((usage.python, usage.node), (None, None));
    }
}
