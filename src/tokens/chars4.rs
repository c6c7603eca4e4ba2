//! `chars4` and `chars4-py`: the seed's "about four characters per token" estimates.
//!
//! TypeScript: `ceil((SYSTEM.length + Σ JSON.stringify(m).length) / 4)`, lengths in UTF-16 units.
//! Python: `ceil((len(SYSTEM) + Σ len(json.dumps(m))) / 4)`, lengths in code points of the
//! ASCII-escaped text. One ceiling per request; tool schemas are ignored, as the seed does.

use super::TokenCounter;
use super::costs::{TEXT_CODE_POINTS, TEXT_UTF16};
use super::json_len::{
    code_points, js_message_len_and_text_utf16, js_message_len_with_content, py_message_len_and_text_code_points,
    py_message_len_with_content, utf16_len,
};
use crate::message::Message;
use crate::tool_schemas::ToolSchemas;

/// Which listing of the seed the estimate follows.
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
    /// An estimator following one listing of the seed.
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
        let (slot, text_slot) = match self.flavor {
            Chars4Flavor::Js => (0, TEXT_UTF16),
            Chars4Flavor::Py => (1, TEXT_CODE_POINTS),
        };
        message.cost(slot, || {
            // The text's length comes with the message's: noted for the notes that need it.
            let (len, text) = match self.flavor {
                Chars4Flavor::Js => js_message_len_and_text_utf16(message),
                Chars4Flavor::Py => py_message_len_and_text_code_points(message),
            };
            if let Some(text) = text {
                message.cost(text_slot, || text);
            }
            len
        })
    }

    fn units_with_content(&self, message: &Message, content: &str) -> u64 {
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
        let system = Message::new(crate::Role::System, "You are the support assistant of a bike shop.");
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
}
