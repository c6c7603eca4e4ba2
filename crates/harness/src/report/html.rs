//! The HTML report, a page to decide from: the verdicts and the leaderboard first, a table of
//! contents, then one section per scenario with its description, its runs in a table sortable
//! by any column (disqualified runs marked), and its charts full width. One colour per strategy
//! in every chart; clicking a strategy (a table row or a legend chip) highlights it in all of
//! them. Self-contained: SVG (or, for very large reports, PNG) inline, a little inline script,
//! no external asset.

use super::colour::hex;
use super::verdict::{Labels, RunLine, SUITE_HEADERS, capitalized, run_line, scenario_cells, suite_note, suite_rows};
use super::verdict_line::verdict_line;
use super::{ResultRow, table::cells_for_html};
use crate::verdict::{Suite, Verdict};

/// A chart as the page shows it.
#[derive(Clone, Debug)]
pub struct InlineChart {
    /// Its file-name stem (`cost-lunch-break`).
    pub name: String,
    /// The scenario it belongs to.
    pub scenario: String,
    /// Its title.
    pub title: String,
    /// The picture: an `<svg>` element, or an `<img>` of a PNG.
    pub body: String,
}

/// A chart a scenario's section would show that its runs do not allow, and why: said in its place.
#[derive(Clone, Debug)]
pub struct NoChart {
    /// The scenario.
    pub scenario: String,
    /// Why, as a sentence.
    pub why: String,
}

/// Everything the page shows.
pub struct Page<'a> {
    /// The title (`ctxbench compare`).
    pub title: &'a str,
    /// The settings every figure depends on.
    pub settings: &'a str,
    /// The runs of each scenario's table (compare: every run; sweep: the best of each).
    pub rows: &'a [ResultRow],
    /// The verdicts and the suite's, for `compare`.
    pub verdicts: Option<(&'a [Verdict<'a>], &'a Suite)>,
    /// Each scenario's description, by name.
    pub descriptions: &'a [(String, String)],
    /// The charts, in order.
    pub charts: &'a [InlineChart],
    /// The charts a scenario's runs do not allow, with why.
    pub missing: &'a [NoChart],
    /// Said where the table of a scenario would be, when there are no verdicts (a sweep).
    pub note: &'a str,
}

pub(super) fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Let a long strategy name wrap after its `+` and `,`.
fn wrappable(text: &str) -> String {
    escape(text).replace('+', "+<wbr>").replace(',', ",<wbr>")
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:1200px;padding:0 1rem;color:#222;line-height:1.4}\
h1{margin-bottom:.2rem}.settings{color:#555;font-size:13px}\
table{border-collapse:collapse;font-size:14px;margin:.5rem 0 1rem}\
th,td{padding:4px 10px;border-bottom:1px solid #ddd;text-align:right;vertical-align:top}\
th{cursor:pointer;user-select:none;background:#f6f6f6;position:sticky;top:0}th.asc::after{content:' ▲'}th.desc::after{content:' ▼'}\
td.text,th.text{text-align:left}td.name{max-width:30em}\
tr.out td{color:#999}tr.out td.why{color:#a33}\
tr[data-strategy]{cursor:pointer}tr.picked td{background:#fff3c4}\
.verdict{background:#eef6ee;border-left:4px solid #3a3;padding:.5rem 1rem}.verdict.none{background:#f6eeee;border-color:#a33}\
.use{font-size:13px;color:#444;margin:.3rem 0 .5rem}.use code{background:#f4f4f4;padding:0 .25rem;font-size:12px;overflow-wrap:anywhere}\
.strip{display:flex;flex-wrap:wrap;gap:.3rem;margin:.5rem 0;font-size:.8rem}.strip-title{font-weight:600;margin-right:.3rem}\
.strip .cell{border:1px solid #cdc;background:#f3faf3;border-radius:.3rem;padding:.1rem .4rem}.strip .cell.flips{border-color:#c90;background:#fff3c4}\
figcaption .links{font-weight:normal;font-size:.85rem;margin-left:.5rem}\
.assumptions{font-size:13px;color:#444;margin:.4rem 0}.assumptions ul{margin:.3rem 0}\
.recommendation{font-size:1.15rem;background:#eef3fb;border-left:4px solid #36c;padding:.75rem 1rem}\
nav ol{columns:2;font-size:14px}figure{margin:1.5rem 0}figcaption{font-weight:600;margin-bottom:.3rem}\
svg,figure img{width:100%;height:auto}\
.chips{display:flex;flex-wrap:wrap;gap:.4rem;margin:.5rem 0}.chip{font-size:13px;border:1px solid #ccc;border-radius:1rem;padding:.1rem .6rem;cursor:pointer;background:#fff}\
.chip i{display:inline-block;width:.8rem;height:.8rem;border-radius:50%;margin-right:.35rem;vertical-align:-1px}.chip.picked{background:#fff3c4;border-color:#c90}\
.dim{opacity:.12}section{border-top:2px solid #eee;margin-top:2rem}#errors:empty{display:none}#errors{color:#a00}";

/// Sorting, highlighting, and a self-test (`#selftest`) that a browser test reads from the DOM.
const SCRIPT: &str = r#"
const errors = document.getElementById('errors');
window.onerror = (m, s, l, c) => { errors.textContent += m + ' (line ' + l + ')\n'; };
const colours = JSON.parse(document.getElementById('colours').textContent);
const value = (td) => {
  const t = td.dataset.sort !== undefined ? td.dataset.sort : td.textContent.trim();
  const n = parseFloat(t.replace(/[$,%]/g, '').split('/')[0]);
  return isNaN(n) || !/^[—$0-9.,%\/+-]/.test(t) ? t.toLowerCase() : n;
};
function sortBy(th) {
  const table = th.closest('table'), body = table.tBodies[0];
  const k = Array.from(th.parentNode.children).indexOf(th);
  const asc = !th.classList.contains('asc');
  table.querySelectorAll('th').forEach(h => h.classList.remove('asc', 'desc'));
  th.classList.add(asc ? 'asc' : 'desc');
  const rows = Array.from(body.rows);
  rows.sort((a, b) => {
    const x = value(a.cells[k]), y = value(b.cells[k]);
    const c = typeof x === typeof y ? (x < y ? -1 : x > y ? 1 : 0) : (typeof x === 'number' ? -1 : 1);
    return asc ? c : -c;
  });
  rows.forEach(r => body.appendChild(r));
}
document.querySelectorAll('table.runs th').forEach(th => th.addEventListener('click', () => sortBy(th)));
let picked = null;
function highlight(names) {
  const keep = names ? new Set(names.map(n => (colours[n] || '').toLowerCase())) : null;
  const all = new Set(Object.values(colours).map(c => c.toLowerCase()));
  document.querySelectorAll('svg [stroke], svg [fill]').forEach(el => {
    const c = ((el.getAttribute('stroke') || '') + ' ' + (el.getAttribute('fill') || '')).toLowerCase().split(' ').find(x => all.has(x));
    if (!c) return;
    el.classList.toggle('dim', keep !== null && !keep.has(c));
  });
  document.querySelectorAll('[data-strategy]').forEach(el => {
    const mine = el.dataset.strategy.split(', ');
    el.classList.toggle('picked', names !== null && mine.some(n => names.includes(n)));
  });
}
function pick(el) {
  const names = el.dataset.strategy.split(', ');
  picked = picked && picked.join() === names.join() ? null : names;
  highlight(picked);
}
document.querySelectorAll('[data-strategy]').forEach(el => {
  el.addEventListener('click', () => pick(el));
  el.addEventListener('mouseenter', () => { if (!picked) highlight(el.dataset.strategy.split(', ')); });
  el.addEventListener('mouseleave', () => { if (!picked) highlight(null); });
});
if (location.hash === '#selftest') {
  const out = [];
  const table = document.querySelector('section table.runs');
  if (table) {
    const th = Array.from(table.querySelectorAll('th')).find(h => h.textContent.trim() === 'tokens sent');
    const k = Array.from(th.parentNode.children).indexOf(th);
    sortBy(th);
    const up = Array.from(table.tBodies[0].rows).map(r => value(r.cells[k]));
    sortBy(th);
    const down = Array.from(table.tBodies[0].rows).map(r => value(r.cells[k]));
    const sorted = (v, s) => v.every((x, i) => i === 0 || s * (x - v[i - 1]) >= 0);
    out.push('sort ' + (up.length > 1 && sorted(up, 1) && sorted(down, -1) ? 'ok' : 'FAILED ' + up.join(',')));
    const row = table.querySelector('tr[data-strategy]');
    row.click();
    const dimmed = document.querySelectorAll('svg .dim').length;
    const mine = (colours[row.dataset.strategy.split(', ')[0]] || '').toLowerCase();
    const lit = Array.from(document.querySelectorAll('svg [stroke]')).filter(e => (e.getAttribute('stroke') || '').toLowerCase() === mine && !e.classList.contains('dim')).length;
    out.push('highlight ' + (dimmed > 0 && lit > 0 && row.classList.contains('picked') ? 'ok' : 'FAILED dimmed=' + dimmed + ' lit=' + lit));
    row.click();
    out.push('unhighlight ' + (document.querySelectorAll('svg .dim').length === 0 ? 'ok' : 'FAILED'));
  }
  const pre = document.createElement('pre');
  pre.id = 'selftest';
  pre.textContent = out.join('\n');
  document.body.appendChild(pre);
}
"#;

/// A table of rows for the page: headers, then cells; `left` columns are text.
fn table(class: &str, headers: &[&str], rows: &[RunLine], left: &[usize]) -> String {
    let mut out = format!("<table class=\"{class}\"><thead><tr>");
    for (c, h) in headers.iter().enumerate() {
        let cls = if left.contains(&c) { " class=\"text\"" } else { "" };
        out.push_str(&format!("<th{cls}>{}</th>", escape(h)));
    }
    out.push_str("</tr></thead><tbody>\n");
    for RunLine {
        cells,
        strategies,
        out: out_of_rank,
    } in rows
    {
        let mut attrs = format!(" data-strategy=\"{}\"", escape(strategies));
        if *out_of_rank {
            attrs.push_str(" class=\"out\"");
        }
        out.push_str(&format!("<tr{attrs}>"));
        for (c, cell) in cells.iter().enumerate() {
            let cls = match (
                left.contains(&c),
                c == 1,
                c + 1 == cells.len() && headers.last() == Some(&"why not"),
            ) {
                (_, _, true) => " class=\"text why\"",
                (true, true, _) => " class=\"text name\"",
                (true, false, _) => " class=\"text\"",
                _ => "",
            };
            // A rank of "—" sorts after every number.
            let sort = if c == 0 && cell == "—" {
                " data-sort=\"99999\""
            } else {
                ""
            };
            let text = if c == 1 || (c == 0 && left.contains(&0)) {
                wrappable(cell)
            } else {
                escape(cell)
            };
            out.push_str(&format!("<td{cls}{sort}>{text}</td>"));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table>\n");
    out
}

/// Chips naming each strategy in its colour, to pick one across the charts.
fn chips(names: &[String]) -> String {
    let mut out = String::from("<div class=\"chips\">");
    for name in names {
        out.push_str(&format!(
            "<span class=\"chip\" data-strategy=\"{}\"><i style=\"background:{}\"></i>{}</span>",
            escape(name),
            hex(name),
            escape(name)
        ));
    }
    out.push_str("</div>\n");
    out
}

/// `id` of a scenario's section.
fn anchor(k: usize) -> String {
    format!("scenario-{}", k + 1)
}

/// The page.
pub fn html(page: &Page<'_>) -> String {
    let labels = Labels::new(page.rows, false);
    let mut scenarios: Vec<&str> = Vec::new();
    for row in page.rows {
        if !scenarios.contains(&row.scenario.as_str()) {
            scenarios.push(&row.scenario);
        }
    }
    let mut names: Vec<String> = Vec::new();
    for row in page.rows {
        let label = labels.of(&row.settings.strategy);
        if !names.contains(&label) {
            names.push(label);
        }
    }
    let colours: serde_json::Map<String, serde_json::Value> = names
        .iter()
        .map(|n| (n.clone(), serde_json::Value::String(hex(n))))
        .collect();

    let mut out = String::from("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str(&format!(
        "<meta name=\"viewport\" content=\"width=device-width\">\n<title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n",
        escape(page.title)
    ));
    out.push_str("<pre id=\"errors\"></pre>\n");
    out.push_str(&format!(
        "<h1>{}</h1>\n<p class=\"settings\">{}</p>\n",
        escape(page.title),
        escape(page.settings)
    ));
    out.push_str(&super::assumptions::assumptions_html(page.rows, escape));

    // The verdicts first: the recommendation, the leaderboard, one line per scenario.
    if let Some((verdicts, suite)) = page.verdicts {
        if verdicts.len() > 1 {
            let recommendation = match &suite.pick {
                Some(pick) => format!(
                    "<b>Use {}</b>, because {}.{}",
                    escape(&labels.of_name(pick)),
                    escape(&suite.why),
                    run_line(suite).map_or(String::new(), |run| format!(
                        "<br><span class=\"use\">{}.</span>",
                        escape(&capitalized(&run))
                    ))
                ),
                None => format!("No recommendation: {}.", escape(&suite.why)),
            };
            out.push_str(&format!(
                "<p class=\"recommendation\">{recommendation}</p>\n<h2>Leaderboard</h2>\n"
            ));
            let rows: Vec<RunLine> = suite
                .leaderboard
                .iter()
                .zip(suite_rows(suite, &labels))
                .map(|(s, cells)| RunLine {
                    cells,
                    strategies: labels.of_name(&s.strategy),
                    out: s.qualified == 0,
                })
                .collect();
            out.push_str(&table("runs board", &SUITE_HEADERS, &rows, &[0]));
            out.push_str(&format!(
                "<p class=\"settings\">{}.</p>\n",
                escape(&capitalized(&suite_note(suite)))
            ));
        }
        out.push_str("<h2>Verdicts</h2>\n<ol>\n");
        for (k, v) in verdicts.iter().enumerate() {
            out.push_str(&format!(
                "<li><a href=\"#{}\">{}</a>: {}</li>\n",
                anchor(k),
                escape(v.scenario),
                escape(&verdict_line(v, &suite.objective, &labels))
            ));
        }
        out.push_str("</ol>\n");
    }

    out.push_str("<nav><h2>Scenarios</h2><ol>\n");
    for (k, name) in scenarios.iter().enumerate() {
        out.push_str(&format!("<li><a href=\"#{}\">{}</a></li>\n", anchor(k), escape(name)));
    }
    out.push_str("</ol></nav>\n");

    for (k, name) in scenarios.iter().enumerate() {
        out.push_str(&format!("<section id=\"{}\">\n<h2>{}</h2>\n", anchor(k), escape(name)));
        if let Some((_, description)) = page.descriptions.iter().find(|(n, _)| n == name) {
            out.push_str(&format!("<p>{}</p>\n", escape(description)));
        }
        let verdict = page
            .verdicts
            .and_then(|(verdicts, suite)| verdicts.iter().find(|v| v.scenario == *name).map(|v| (v, suite)));
        match verdict {
            Some((v, suite)) => {
                let none = if v.ranked.is_empty() { " none" } else { "" };
                out.push_str(&format!(
                    "<p class=\"verdict{none}\">{}</p>\n",
                    escape(&verdict_line(v, &suite.objective, &labels))
                ));
                if let Some(loops) = super::verdict_line::loops(v, &labels) {
                    out.push_str(&format!("<p class=\"loops\">{}</p>\n", escape(&loops)));
                }
                out.push_str(&super::use_lines::use_html(v, escape));
                out.push_str(&sensitivity_strip(v, &labels));
                let (headers, rows) = scenario_cells(v, &labels);
                out.push_str(&table("runs", &headers, &rows, &[1, headers.len() - 1]));
            }
            None => {
                let of: Vec<ResultRow> = page.rows.iter().filter(|r| r.scenario == *name).cloned().collect();
                let (headers, cells) = cells_for_html(&of);
                let rows: Vec<RunLine> = of
                    .iter()
                    .zip(cells)
                    .map(|(r, c)| RunLine {
                        cells: c.to_vec(),
                        strategies: labels.of(&r.settings.strategy),
                        out: !r.metrics.completed,
                    })
                    .collect();
                if !page.note.is_empty() {
                    out.push_str(&format!("<p>{}</p>\n", escape(page.note)));
                }
                out.push_str(&table("runs", &headers, &rows, &[0, 1]));
            }
        }
        let mine: Vec<String> = names
            .iter()
            .filter(|n| {
                page.rows
                    .iter()
                    .any(|r| r.scenario == *name && labels.of(&r.settings.strategy) == **n)
            })
            .cloned()
            .collect();
        let charts: Vec<&InlineChart> = page.charts.iter().filter(|c| c.scenario == *name).collect();
        if page.charts.is_empty() {
            out.push_str("<p>No charts: they were not drawn (--no-plots).</p>\n");
        } else if charts.is_empty() {
            out.push_str("<p>No chart for this scenario: nothing in its runs to draw.</p>\n");
        } else {
            out.push_str(&chips(&mine));
        }
        // A chart a reader would look for, and why it is not there.
        for missing in page.missing.iter().filter(|m| m.scenario == *name) {
            out.push_str(&format!("<p class=\"settings\">{}</p>\n", escape(&missing.why)));
        }
        for chart in charts {
            out.push_str(&format!(
                "<figure>\n<figcaption>{} <span class=\"links\"><a href=\"plots/{name}.png\">PNG</a> · <a href=\"plots/{name}.svg\">SVG</a></span></figcaption>\n{}\n</figure>\n",
                escape(&chart.title),
                chart.body.trim(),
                name = escape(&chart.name),
            ));
        }
        out.push_str("</section>\n");
    }
    out.push_str(&format!(
        "<script type=\"application/json\" id=\"colours\">{}</script>\n<script>{SCRIPT}</script>\n</body>\n</html>\n",
        serde_json::Value::Object(colours)
    ));
    out
}

/// Which configuration each price of the table picks, the run's pick highlighted where it holds
/// and the others marked where they flip it; and the pick's win rate over the seeds.
fn sensitivity_strip(v: &Verdict<'_>, labels: &Labels) -> String {
    let Some(s) = &v.sensitivity else {
        return String::new();
    };
    let pick = v.pick().map(|p| p.strategy());
    let title = if s.profiles.is_empty() {
        "The pick under each price:"
    } else {
        "The pick under each price and summarizer profile:"
    };
    let mut out = format!("<div class=\"strip\"><span class=\"strip-title\">{title}</span>");
    for (price, picked) in s.prices.iter().chain(&s.profiles) {
        let holds = picked == &pick;
        let name = picked
            .as_deref()
            .map_or("nothing qualifies".to_owned(), |p| labels.of_name(p));
        out.push_str(&format!(
            "<span class=\"cell{}\" title=\"{}\"><b>{}</b> {}</span>",
            if holds { "" } else { " flips" },
            if holds { "holds" } else { "flips" },
            escape(price),
            escape(&name)
        ));
    }
    out.push_str("</div>\n");
    if let Some(rate) = s.seed_win_rate {
        let wins = (rate * s.seeds as f64).round() as usize;
        out.push_str(&format!(
            "<p class=\"settings\">The pick wins in {} of {} seeds on each seed's runs alone{}.</p>\n",
            crate::human::thousands(wins as u64),
            crate::human::thousands(s.seeds as u64),
            if s.fragile {
                "; it is fragile (marked 1* in the table)"
            } else {
                ""
            }
        ));
    }
    out
}
