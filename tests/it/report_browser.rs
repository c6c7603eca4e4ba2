//! The HTML report in a real browser: headless Chromium loads `index.html`, the page's own
//! self-test (`#selftest`) sorts a table and highlights a strategy across the charts, and the
//! dumped DOM must show no script error and every check passed. Without a browser the test says
//! so and checks only what needs none; `.ci/run` installs Chromium.

use std::path::Path;
use std::process::Command;

use crate::cmd::{ctxbench, read, scratch};

/// A headless Chromium: `$CTXBENCH_CHROMIUM`, or the first of the usual names on PATH.
fn browser() -> Option<String> {
    let candidates = std::env::var("CTXBENCH_CHROMIUM")
        .into_iter()
        .chain(["chromium", "chromium-browser", "google-chrome"].map(String::from));
    candidates.into_iter().find(|b| {
        Command::new(b)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

fn dump_dom(browser: &str, page: &Path) -> String {
    let output = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--virtual-time-budget=5000",
            "--dump-dom",
        ])
        .arg(format!("file://{}#selftest", page.display()))
        .output()
        .expect("the browser runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).expect("UTF-8")
}

/// The text of `<pre id="ID">…</pre>` in a dumped DOM.
fn pre(dom: &str, id: &str) -> Option<String> {
    let start = dom.find(&format!("<pre id=\"{id}\">"))? + id.len() + 11;
    let end = start + dom[start..].find("</pre>")?;
    Some(dom[start..end].to_owned())
}

#[test]
fn the_report_renders_sorts_and_highlights_in_a_browser() {
    let dir = scratch("browser");
    let output = ctxbench()
        .args([
            "compare",
            "scenarios/bike-shop-return.json",
            "scenarios/lunch-break.json",
            "--strategies",
            "none,truncate,drop,mask+drop",
            "--out",
        ])
        .arg(&dir)
        .output()
        .expect("runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let page = dir.join("index.html");
    let html = String::from_utf8(read(&page)).expect("UTF-8");
    // What needs no browser: verdicts first, no external asset, a section per scenario.
    let recommendation = html.find("class=\"recommendation\"").expect("a recommendation");
    let first_section = html.find("<section").expect("sections");
    assert!(recommendation < first_section, "the verdicts come before the scenarios");
    // Links to the profiles' sources are links, not assets: nothing loads from elsewhere.
    assert!(
        !html.contains("src=\"http") && !html.contains("<link"),
        "no external asset"
    );
    assert_eq!(html.matches("<section id=").count(), 2);
    assert!(
        html.contains("<tr data-strategy=\"none\" class=\"out\">"),
        "a disqualified run is marked"
    );

    let Some(browser) = browser() else {
        eprintln!("skipped the browser half: no Chromium found (install `chromium`, or set CTXBENCH_CHROMIUM)");
        return;
    };
    let dom = dump_dom(&browser, &page);
    assert_eq!(pre(&dom, "errors").as_deref(), Some(""), "no script error");
    let checks = pre(&dom, "selftest").expect("the self-test ran");
    assert_eq!(checks, "sort ok\nhighlight ok\nunhighlight ok", "{checks}");
}
