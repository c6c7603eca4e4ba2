//! A self-contained HTML report: the table and every chart, SVG inline, no external asset, to
//! open straight from a CI artifact.

use super::ResultRow;
use super::table::cells_for_html;

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The page: a title, the settings, the results table, then each chart `(title, svg)`.
pub fn html(title: &str, settings: &str, rows: &[ResultRow], charts: &[(String, String)]) -> String {
    let (headers, body) = cells_for_html(rows);
    let mut out = String::from("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str(&format!("<title>{}</title>\n", escape(title)));
    out.push_str(
        "<style>body{font-family:system-ui,sans-serif;margin:2rem;color:#222}table{border-collapse:collapse;font-size:14px}\
         th,td{padding:4px 10px;border-bottom:1px solid #ddd;text-align:right}td:nth-child(2){max-width:28em}td:first-child{white-space:nowrap}th:nth-child(-n+2),td:nth-child(-n+2){text-align:left}\
         figure{margin:2rem 0}svg{max-width:100%;height:auto}</style>\n</head>\n<body>\n",
    );
    out.push_str(&format!(
        "<h1>{}</h1>\n<p>{}</p>\n<table>\n<tr>",
        escape(title),
        escape(settings)
    ));
    for h in headers {
        out.push_str(&format!("<th>{}</th>", escape(h)));
    }
    out.push_str("</tr>\n");
    for row in body {
        out.push_str("<tr>");
        for (c, cell) in row.iter().enumerate() {
            let text = escape(cell);
            // A canonical strategy name is long: let it wrap after its `+` and `,`.
            let text = if c == 1 {
                text.replace('+', "+<wbr>").replace(',', ",<wbr>")
            } else {
                text
            };
            out.push_str(&format!("<td>{text}</td>"));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
    for (chart_title, svg) in charts {
        // The SVG's own XML declaration has no place inside HTML.
        let svg = svg.trim_start_matches(|c| c != '<').trim_start();
        let svg = if svg.starts_with("<?xml") {
            &svg[svg.find("?>").map_or(0, |i| i + 2)..]
        } else {
            svg
        };
        out.push_str(&format!(
            "<figure>\n<figcaption>{}</figcaption>\n{}\n</figure>\n",
            escape(chart_title),
            svg.trim()
        ));
    }
    out.push_str("</body>\n</html>\n");
    out
}
