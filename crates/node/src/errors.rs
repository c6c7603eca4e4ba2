//! The errors the addon throws: a JavaScript `Error` whose message opens with the class the
//! package throws in its place (`TypeError: `, `RangeError: `, `PairingError: ` or `Error: `);
//! node/index.js strips the word and throws that class, with the rest as its message. The words
//! are the Python package's (crates/python), with JavaScript's names.

use napi::{Error, Status};

/// The class of error the package throws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A value the library refuses: an unknown name, a malformed message.
    Plain,
    /// A value of the wrong type.
    Type,
    /// A broken pairing of tool calls and results.
    Pairing,
}

impl Kind {
    fn word(self) -> &'static str {
        match self {
            Kind::Plain => "Error",
            Kind::Type => "TypeError",
            Kind::Pairing => "PairingError",
        }
    }
}

/// What went wrong, and the class to throw.
#[derive(Debug)]
pub struct Refusal {
    /// The class.
    pub kind: Kind,
    /// The message, in the caller's words.
    pub message: String,
}

impl Refusal {
    /// A plain `Error`.
    pub fn plain(message: impl Into<String>) -> Refusal {
        Refusal {
            kind: Kind::Plain,
            message: message.into(),
        }
    }

    /// A `TypeError`.
    pub fn type_error(message: impl Into<String>) -> Refusal {
        Refusal {
            kind: Kind::Type,
            message: message.into(),
        }
    }

    /// A `PairingError`.
    pub fn pairing(message: impl Into<String>) -> Refusal {
        Refusal {
            kind: Kind::Pairing,
            message: message.into(),
        }
    }

    /// The message with its class's word in front, as the package reads it.
    pub fn tagged(&self) -> String {
        format!("{}: {}", self.kind.word(), self.message)
    }
}

impl From<Refusal> for Error {
    fn from(refusal: Refusal) -> Error {
        Error::new(Status::GenericFailure, refusal.tagged())
    }
}

/// A result of the addon's own.
pub type Refused<T> = Result<T, Refusal>;
