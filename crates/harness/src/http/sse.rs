//! Server-sent events as they go on the wire (the `text/event-stream` framing of the HTML
//! standard, <https://html.spec.whatwg.org/multipage/server-sent-events.html>, read 2026-12-05):
//! an optional `event:` line, one `data:` line per line of data, a blank line after each event.

/// One server-sent event.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// When it is due, in seconds of the call's simulated clock from the request.
    pub at_s: f64,
    /// Its `event:` line (Anthropic's and Responses' event types; chat chunks have none).
    pub name: Option<String>,
    /// Its `data:` (JSON, or chat's closing `[DONE]`).
    pub data: String,
}

impl Event {
    /// The event in its framing: `event: NAME\ndata: DATA\n\n`.
    pub fn wire(&self) -> String {
        let mut out = String::with_capacity(self.data.len() + 32);
        if let Some(name) = &self.name {
            out.push_str("event: ");
            out.push_str(name);
            out.push('\n');
        }
        for line in self.data.split('\n') {
            out.push_str("data: ");
            out.push_str(line);
            out.push('\n');
        }
        out.push('\n');
        out
    }
}

/// The events of a stream's text, as `(event name, data)`: comments (`:` lines) and fields other
/// than `event` and `data` are skipped, several `data` lines of one event joined by newlines, and
/// an event with no data dropped (as a browser's `EventSource` does).
pub fn parse(text: &str) -> Vec<(Option<String>, String)> {
    let mut events = Vec::new();
    let mut name: Option<String> = None;
    let mut data: Option<String> = None;
    for line in text.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.is_empty() {
            if let Some(data) = data.take() {
                events.push((name.take(), data));
            }
            name = None;
            continue;
        }
        if line.starts_with(':') {
            continue;
        }
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "event" => name = Some(value.to_owned()),
            "data" => match &mut data {
                Some(d) => {
                    d.push('\n');
                    d.push_str(value);
                }
                None => data = Some(value.to_owned()),
            },
            _ => {}
        }
    }
    if let Some(data) = data {
        events.push((name, data));
    }
    events
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_frame_and_parse_back() {
        let events = [
            Event {
                at_s: 0.0,
                name: Some("message_start".into()),
                data: r#"{"a":1}"#.into(),
            },
            Event {
                at_s: 0.5,
                name: None,
                data: "two\nlines".into(),
            },
        ];
        let text: String = events.iter().map(Event::wire).collect();
        assert_eq!(
            text,
            "event: message_start\ndata: {\"a\":1}\n\ndata: two\ndata: lines\n\n"
        );
        assert_eq!(
            parse(&text),
            vec![
                (Some("message_start".into()), r#"{"a":1}"#.into()),
                (None, "two\nlines".into())
            ]
        );
        // CRLF line ends, comments, an unknown field, a last event without its blank line.
        assert_eq!(
            parse(": keep-alive\r\nid: 7\r\nevent: ping\r\ndata: {}\r\n\r\ndata:[DONE]"),
            vec![(Some("ping".into()), "{}".into()), (None, "[DONE]".into())]
        );
    }
}
