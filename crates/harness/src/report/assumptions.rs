//! The behaviour profiles a set of runs rests on, for the page's assumptions box and
//! `verdict.json`: each profile once, by name, with its key numbers and sources.

use serde_json::{Value, json};

use crate::row::ResultRow;
use crate::sim::profile::{Behaviour, Source, Summarizer};

/// The distinct profiles of `rows`, in the order they first appear.
pub fn profiles_in<'a>(rows: impl IntoIterator<Item = &'a ResultRow>) -> (Vec<Summarizer>, Vec<Behaviour>) {
    let (mut summarizers, mut models): (Vec<Summarizer>, Vec<Behaviour>) = (Vec::new(), Vec::new());
    for row in rows {
        if !summarizers.contains(&row.settings.summarizer) {
            summarizers.push(row.settings.summarizer.clone());
        }
        if !models.contains(&row.settings.model_profile) {
            models.push(row.settings.model_profile.clone());
        }
    }
    (summarizers, models)
}

/// The profiles as JSON: every number and source.
pub fn profiles_json<'a>(rows: impl IntoIterator<Item = &'a ResultRow>) -> Value {
    let (summarizers, models) = profiles_in(rows);
    json!({
        "summarizer": summarizers.iter().map(|s| &*s.0).collect::<Vec<_>>(),
        "model": models.iter().map(|m| &*m.0).collect::<Vec<_>>(),
    })
}

/// The page's assumptions box: what the lost facts rest on, with links to the sources.
pub fn assumptions_html(rows: &[ResultRow], escape: fn(&str) -> String) -> String {
    let (summarizers, models) = profiles_in(rows);
    if summarizers.is_empty() {
        return String::new();
    }
    let sources = |sources: &[Source]| -> String {
        let items: Vec<String> = sources
            .iter()
            .map(|s| {
                let what = escape(&s.figures);
                if s.url.is_empty() {
                    format!("{what}: assumption")
                } else {
                    format!("<a href=\"{}\">{what}</a>", escape(&s.url))
                }
            })
            .collect();
        items.join(" · ")
    };
    let mut out = String::from(
        "<details class=\"assumptions\" open><summary>Assumptions: how the simulated summarizer and model behave (<code>ctxbench profiles</code>)</summary>\n<ul>\n",
    );
    let items = summarizers
        .iter()
        .map(|s| ("summarizer", s.0.brief(), &s.0.about, &s.0.sources))
        .chain(models.iter().map(|m| ("model", m.0.brief(), &m.0.about, &m.0.sources)));
    for (kind, brief, about, from) in items {
        out.push_str(&format!(
            "<li>{kind} <b>{}</b>: {}; {}</li>\n",
            escape(&brief),
            escape(about),
            sources(from)
        ));
    }
    out.push_str("</ul></details>\n");
    out
}
