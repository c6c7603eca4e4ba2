//! Enums whose values have names (on the command line, in files, on the wire), each declared
//! once. [`named!`](crate::named!) writes the enum from one list of `Variant = "name"` with a
//! doc line each, and from it the names (`as_str`), `ALL`, `parse`, `Display`, serde both ways
//! (the name; an unknown name says which names there are), and [`Named`], through which a
//! command line lists, parses and explains any of them. Nothing else spells the names.

use std::fmt;
use std::marker::PhantomData;

#[doc(hidden)]
pub use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An enum declared with [`named!`](crate::named!): its values, their names and what each means.
pub trait Named: Copy + Sized + Send + Sync + 'static {
    /// Every value, in the order help texts list them.
    const ALL: &'static [Self];

    /// The value's name.
    fn name(self) -> &'static str;

    /// What the value means, in a line: its doc comment.
    fn help(self) -> &'static str;

    /// The value of a name.
    fn from_name(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|v| v.name() == name)
    }

    /// Every name, for a message: `reject or truncate`, `facts, cost, tokens or calls`.
    fn names() -> String {
        let names: Vec<&str> = Self::ALL.iter().map(|v| v.name()).collect();
        match names.split_last() {
            Some((last, [])) => (*last).to_owned(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        }
    }
}

/// Why a name is none of `T`'s: `"trunc" is not one of reject or truncate`.
pub fn unknown<T: Named>(name: &str) -> String {
    format!("`{name}` is not one of {}", T::names())
}

#[doc(hidden)]
pub fn deserialize<'de, D: Deserializer<'de>, T: Named>(deserializer: D) -> Result<T, D::Error> {
    deserializer.deserialize_str(NameVisitor(PhantomData))
}

/// Reads a name without copying it.
struct NameVisitor<T>(PhantomData<T>);

impl<T: Named> serde::de::Visitor<'_> for NameVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "one of {}", T::names())
    }

    fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<T, E> {
        T::from_name(name).ok_or_else(|| E::custom(unknown::<T>(name)))
    }
}

/// Declares an enum whose values have names, and everything spelt from them ([`Named`]):
///
/// ```
/// ctxbench_compact::named! {
///     /// What the server does with a request over the window.
///     #[derive(Clone, Copy, Debug, PartialEq, Eq)]
///     pub enum Overflow {
///         /// Reject it with a context-length error.
///         Reject = "reject",
///         /// Cut the oldest messages until it fits.
///         Truncate = "truncate",
///     }
/// }
/// use ctxbench_compact::named::Named;
/// assert_eq!(Overflow::parse("truncate"), Some(Overflow::Truncate));
/// assert_eq!(Overflow::Reject.to_string(), "reject");
/// assert_eq!(Overflow::Truncate.help(), "Cut the oldest messages until it fits.");
/// assert_eq!(Overflow::names(), "reject or truncate");
/// ```
#[macro_export]
macro_rules! named {
    (
        $(#[$meta:meta])*
        $vis:vis enum $Name:ident {
            $(
                $(#[doc = $doc:literal])*
                $Variant:ident = $text:literal
            ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        $vis enum $Name {
            $( $(#[doc = $doc])* $Variant, )+
        }

        impl $Name {
            /// Every value, in the order help texts list them.
            pub const ALL: [$Name; <[&str]>::len(&[$($text),+])] = [$($Name::$Variant),+];

            /// Its name (on the command line, in files, on the wire).
            pub const fn as_str(self) -> &'static str {
                match self {
                    $($Name::$Variant => $text,)+
                }
            }

            /// The value of a name.
            pub fn parse(name: &str) -> Option<$Name> {
                match name {
                    $($text => Some($Name::$Variant),)+
                    _ => None,
                }
            }
        }

        impl $crate::named::Named for $Name {
            const ALL: &'static [$Name] = &$Name::ALL;

            fn name(self) -> &'static str {
                self.as_str()
            }

            fn help(self) -> &'static str {
                match self {
                    $($Name::$Variant => concat!($($doc),*).trim_ascii(),)+
                }
            }

            fn from_name(name: &str) -> Option<$Name> {
                $Name::parse(name)
            }
        }

        impl ::core::fmt::Display for $Name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl $crate::named::Serialize for $Name {
            fn serialize<S: $crate::named::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> $crate::named::Deserialize<'de> for $Name {
            fn deserialize<D: $crate::named::Deserializer<'de>>(deserializer: D) -> Result<$Name, D::Error> {
                $crate::named::deserialize(deserializer)
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    crate::named! {
        /// Three names.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        enum Count {
            /// The first.
            One = "one",
            /// The second,
            /// on two lines.
            Two = "two-words",
            /// The third.
            Third = "three",
        }
    }

    #[test]
    fn one_list_gives_every_spelling() {
        assert_eq!(Count::ALL, [Count::One, Count::Two, Count::Third]);
        for value in Count::ALL {
            assert_eq!(Count::parse(value.as_str()), Some(value));
            assert_eq!(value.to_string(), value.as_str());
            let json = serde_json::to_string(&value).expect("serializes");
            assert_eq!(json, format!("\"{value}\""));
            assert_eq!(serde_json::from_str::<Count>(&json).expect("reads back"), value);
        }
        assert_eq!(Count::Two.help(), "The second, on two lines.");
        assert_eq!(Count::names(), "one, two-words or three");
        let e = serde_json::from_str::<Count>("\"four\"").expect_err("not a name");
        assert!(
            e.to_string()
                .starts_with("`four` is not one of one, two-words or three"),
            "{e}"
        );
        assert_eq!(Count::parse("One"), None, "names are exact");
    }
}
