//! `chars4` and `chars4-py`: the reference listing's "about four characters per token" estimates.
//!
//! TypeScript: `ceil((SYSTEM.length + Σ JSON.stringify(m).length) / 4)`, lengths in UTF-16 units.
//! Python: `ceil((len(SYSTEM) + Σ len(json.dumps(m))) / 4)`, lengths in code points of the
//! ASCII-escaped text. One ceiling per request; tool schemas are ignored, as the reference listing does.

use super::TokenCounter;
use super::message_len::{
    js_message_len_and_content, js_message_len_with_content, py_message_len_and_content, py_message_len_with_content,
};
use crate::costs::{CONTENT_JS, CONTENT_PY, TEXT_CODE_POINTS, TEXT_UTF16};
use crate::json_len::{code_points, js_string_len, py_string_len, utf16_len};
use crate::message::Message;
use crate::tool_schemas::ToolSchemas;

/// Which reference listing the estimate follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chars4Flavor {
    /// The TypeScript listing.
    Js,
    /// The Python listing.
    Py,
}

/// The four-characters-per-token estimate.
#[derive(Clone, Copy, Debug)]
pub struct Chars4 {
    flavor: Chars4Flavor,
}

impl Chars4 {
    /// An estimator following one reference listing.
    pub fn new(flavor: Chars4Flavor) -> Chars4 {
        Chars4 { flavor }
    }

    /// Length of a plain text (the system prompt) in this flavor's units.
    pub fn text_len(&self, text: &str) -> u64 {
        match self.flavor {
            Chars4Flavor::Js => utf16_len(text),
            Chars4Flavor::Py => code_points(text),
        }
    }

    /// The cost slots of this flavor: the message's cost, its text's length, its content's part.
    fn slots(&self) -> (usize, usize, usize) {
        match self.flavor {
            Chars4Flavor::Js => (0, TEXT_UTF16, CONTENT_JS),
            Chars4Flavor::Py => (1, TEXT_CODE_POINTS, CONTENT_PY),
        }
    }
}

impl TokenCounter for Chars4 {
    fn name(&self) -> &'static str {
        match self.flavor {
            Chars4Flavor::Js => "chars4",
            Chars4Flavor::Py => "chars4-py",
        }
    }

    fn prefix_units(&self, system: Option<&Message>, _tools: &ToolSchemas) -> u64 {
        // The system prompt counts as plain text, not as a message: its own cost slots.
        system.map_or(0, |m| match self.flavor {
            Chars4Flavor::Js => m.text_utf16_len(),
            Chars4Flavor::Py => m.text_code_points(),
        })
    }

    fn message_units(&self, message: &Message) -> u64 {
        let (slot, text_slot, content_slot) = self.slots();
        message.cost(slot, || {
            // A string content's length and its part of the message's come with the message's:
            // noted for the notes and the rewrites that need them.
            let (len, content) = match self.flavor {
                Chars4Flavor::Js => js_message_len_and_content(message),
                Chars4Flavor::Py => py_message_len_and_content(message),
            };
            if let Some(content) = content {
                message.cost(text_slot, || content.chars);
                message.cost(content_slot, || content.json);
            }
            len
        })
    }

    fn units_with_content(&self, message: &Message, content: &str) -> u64 {
        let (slot, _, content_slot) = self.slots();
        // Counted already: the other fields stay, only the content's part changes.
        if let (Some(units), Some(old)) = (message.known_cost(slot), message.known_cost(content_slot)) {
            let new = match self.flavor {
                Chars4Flavor::Js => js_string_len(content),
                Chars4Flavor::Py => py_string_len(content),
            };
            return units - old + new;
        }
        match self.flavor {
            Chars4Flavor::Js => js_message_len_with_content(message, content),
            Chars4Flavor::Py => py_message_len_with_content(message, content),
        }
    }

    fn text_tokens(&self, text: &str) -> u64 {
        self.text_len(text).div_ceil(4)
    }

    fn tokens(&self, units: u64) -> u64 {
        units.div_ceil(4)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool_schemas::NO_TOOLS;
    use serde_json::{Value, json};

    fn message(v: Value) -> Message {
        Message::from_value(v).expect("valid")
    }

    #[test]
    fn matches_the_seeds_typescript_estimate() {
        // ceil((SYSTEM.length + Σ JSON.stringify(m).length) / 4), computed by hand and under Node.
        let system = Message::new(
            crate::message::Role::System,
            "You are the support assistant of a bike shop.",
        );
        let history = [
            message(json!({"role": "user", "content": "Hi! My order #4471 came with a bent front wheel."})),
            message(json!({"role": "assistant", "content": "🚲 On it 👍"})),
        ];
        let c = Chars4::new(Chars4Flavor::Js);
        // 45 + 76 + 44 = 165 units, ceil(165 / 4) = 42.
        assert_eq!(c.message_units(&history[0]), 76);
        assert_eq!(c.message_units(&history[1]), 44);
        assert_eq!(c.count(Some(&system), &history, &NO_TOOLS), 42);
    }

    #[test]
    fn python_flavor_escapes_non_ascii() {
        let c = Chars4::new(Chars4Flavor::Py);
        let m = message(json!({"role": "assistant", "content": "🚲 On it 👍"}));
        // {"role": "assistant", "content": "\ud83d\udeb2 On it \ud83d\udc4d"} is 67 characters.
        assert_eq!(c.message_units(&m), 67);
    }

    #[test]
    fn counting_a_message_notes_its_text_length() {
        for text in crate::message::tests::SHAPES {
            let m: Message = serde_json::from_str(text).expect("valid");
            let string = m.content_str().is_some();
            Chars4::new(Chars4Flavor::Js).message_units(&m);
            Chars4::new(Chars4Flavor::Py).message_units(&m);
            // Noted when the content is a string: the notes then need not read the text again.
            let utf16 = m.cost(TEXT_UTF16, || u64::MAX);
            let chars = m.cost(TEXT_CODE_POINTS, || u64::MAX);
            if string {
                assert_eq!(utf16, utf16_len(&m.text()), "{text}");
                assert_eq!(chars, code_points(&m.text()), "{text}");
            }
            assert_eq!(m.text_utf16_len(), utf16_len(&m.text()), "{text}");
            assert_eq!(m.text_code_points(), code_points(&m.text()), "{text}");
        }
    }

    #[test]
    fn a_rewrite_costs_the_same_before_and_after_counting() {
        // Once counted, a string content's part is taken off and the new one's added; before,
        // the message is measured whole. Both must agree, for every shape and new content.
        for text in crate::message::tests::SHAPES {
            for content in ["", "[cleared]", "new \"text\" é😀\n\u{1}"] {
                let m: Message = serde_json::from_str(text).expect("valid");
                for flavor in [Chars4Flavor::Js, Chars4Flavor::Py] {
                    let c = Chars4::new(flavor);
                    let uncounted = c.units_with_content(&m, content);
                    c.message_units(&m);
                    let mut rewritten = m.clone();
                    rewritten.set_content(content.to_owned());
                    assert_eq!(uncounted, c.message_units(&rewritten), "{flavor:?} {text}");
                    assert_eq!(c.units_with_content(&m, content), uncounted, "{flavor:?} {text}");
                }
            }
        }
    }
}
