//! The prompt caches providers run, as settings: `none`, `prefix` (every prefix of a request is
//! kept, as OpenAI, Gemini and DeepSeek do) and `breakpoints` (only prefixes ending at the marks
//! the client sets, as Anthropic does). The simulation itself is `sim::prompt_cache`.

use std::fmt;

use super::error::CacheError;

/// A provider's prompt cache (`--cache MODE[:k=v,…]`).
#[derive(Clone, Debug, PartialEq)]
pub enum CacheMode {
    /// Nothing is cached: every input token is uncached.
    None,
    /// After each call, every prefix of its request is stored; a request reads the longest
    /// stored prefix it shares, rounded down to `block` tokens, if at least `min`.
    Prefix {
        /// The provider's granularity, in tokens.
        block: u64,
        /// Reads shorter than this are not reads.
        min: u64,
        /// Seconds a prefix lives after it was last written or read.
        ttl_s: u64,
        /// The reply is stored too, appended to its request (DeepSeek, vLLM, SGLang).
        output: bool,
    },
    /// Only prefixes ending at a breakpoint are stored: ctxbench marks the end of the system
    /// prompt with the tools and the last message of each request. A request reads the longest
    /// stored breakpoint prefix it shares, looking back at most `lookback` segments from each of
    /// its marks, if at least `min`; it writes, at `write` × the input price, the tokens between
    /// what it read and its last mark.
    Breakpoints {
        /// Prefixes shorter than this are neither read nor written.
        min: u64,
        /// Seconds a prefix lives after it was last written or read.
        ttl_s: u64,
        /// How many segments before a mark a hit is looked for.
        lookback: usize,
        /// The write price as a multiple of the input price (1.25 for 5 minutes, 2 for an hour).
        write: f64,
    },
}

impl CacheMode {
    /// The parameters of `prefix` when none are given: OpenAI's.
    pub const PREFIX: CacheMode = CacheMode::Prefix {
        block: 128,
        min: 1024,
        ttl_s: 300,
        output: false,
    };

    /// The parameters of `breakpoints` when none are given: Anthropic's 5-minute cache.
    pub const BREAKPOINTS: CacheMode = CacheMode::Breakpoints {
        min: 1024,
        ttl_s: 300,
        lookback: 20,
        write: 1.25,
    };

    /// How long a stored prefix lives without use; `None` for no cache.
    pub fn ttl_s(&self) -> Option<u64> {
        match self {
            CacheMode::None => None,
            CacheMode::Prefix { ttl_s, .. } | CacheMode::Breakpoints { ttl_s, .. } => Some(*ttl_s),
        }
    }

    /// Parses `none`, `prefix[:block=…,min=…,ttl=…,output=…]` or
    /// `breakpoints[:min=…,ttl=…,lookback=…,write=…]`; what is not given keeps its default.
    pub fn parse(text: &str) -> Result<CacheMode, CacheError> {
        let (name, params) = match text.trim().split_once(':') {
            Some((name, params)) => (name.trim(), params),
            None => (text.trim(), ""),
        };
        let mut mode = match name {
            "none" => CacheMode::None,
            "prefix" => CacheMode::PREFIX,
            "breakpoints" => CacheMode::BREAKPOINTS,
            other => return Err(CacheError::NotAMode { name: other.to_owned() }),
        };
        for param in params.split(',').filter(|p| !p.trim().is_empty()) {
            let (key, value) = param.split_once('=').ok_or_else(|| CacheError::NotKeyValue {
                param: param.to_owned(),
                mode: name.to_owned(),
            })?;
            mode.set(key.trim(), value.trim())?;
        }
        Ok(mode)
    }

    fn set(&mut self, key: &str, value: &str) -> Result<(), CacheError> {
        let whole = |value: &str| {
            value.parse::<u64>().map_err(|_| CacheError::NotWhole {
                key: key.to_owned(),
                value: value.to_owned(),
            })
        };
        match self {
            CacheMode::Prefix { block, .. } if key == "block" => {
                *block = whole(value)?;
                if *block == 0 {
                    return Err(CacheError::NoBlock);
                }
            }
            CacheMode::Prefix { min, .. } | CacheMode::Breakpoints { min, .. } if key == "min" => *min = whole(value)?,
            CacheMode::Prefix { ttl_s, .. } | CacheMode::Breakpoints { ttl_s, .. } if key == "ttl" => {
                *ttl_s = whole(value)?
            }
            CacheMode::Prefix { output, .. } if key == "output" => {
                *output = match value {
                    "true" => true,
                    "false" => false,
                    _ => {
                        return Err(CacheError::NotBool {
                            value: value.to_owned(),
                        });
                    }
                }
            }
            CacheMode::Breakpoints { lookback, .. } if key == "lookback" => *lookback = whole(value)? as usize,
            CacheMode::Breakpoints { write, .. } if key == "write" => {
                *write = value
                    .parse::<f64>()
                    .ok()
                    .filter(|w| w.is_finite() && *w >= 0.0)
                    .ok_or_else(|| CacheError::NotMultiple {
                        value: value.to_owned(),
                    })?
            }
            CacheMode::None => return Err(CacheError::NoParameters),
            CacheMode::Prefix { .. } => {
                return Err(CacheError::UnknownParameter {
                    mode: "prefix",
                    key: key.to_owned(),
                    known: "block, min, ttl, output",
                });
            }
            CacheMode::Breakpoints { .. } => {
                return Err(CacheError::UnknownParameter {
                    mode: "breakpoints",
                    key: key.to_owned(),
                    known: "min, ttl, lookback, write",
                });
            }
        }
        Ok(())
    }
}

impl fmt::Display for CacheMode {
    /// The canonical spelling: every parameter, in order.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CacheMode::None => f.write_str("none"),
            CacheMode::Prefix {
                block,
                min,
                ttl_s,
                output,
            } => write!(f, "prefix:block={block},min={min},ttl={ttl_s},output={output}"),
            CacheMode::Breakpoints {
                min,
                ttl_s,
                lookback,
                write,
            } => write!(f, "breakpoints:min={min},ttl={ttl_s},lookback={lookback},write={write}"),
        }
    }
}

impl std::str::FromStr for CacheMode {
    type Err = CacheError;

    fn from_str(text: &str) -> Result<CacheMode, CacheError> {
        CacheMode::parse(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_parse_to_their_canonical_spelling() {
        let canonical = |t: &str| CacheMode::parse(t).map(|m| m.to_string()).map_err(|e| e.to_string());
        assert_eq!(canonical("none").as_deref(), Ok("none"));
        assert_eq!(
            canonical("prefix").as_deref(),
            Ok("prefix:block=128,min=1024,ttl=300,output=false")
        );
        assert_eq!(
            canonical("prefix:output=true,block=64,min=64,ttl=3600").as_deref(),
            Ok("prefix:block=64,min=64,ttl=3600,output=true")
        );
        assert_eq!(
            canonical("breakpoints:ttl=3600,write=2").as_deref(),
            Ok("breakpoints:min=1024,ttl=3600,lookback=20,write=2")
        );
        assert!(canonical("lru").is_err_and(|e| e.contains("expected none, prefix or breakpoints")));
        assert!(canonical("prefix:lookback=3").is_err_and(|e| e.contains("block, min, ttl, output")));
        assert!(canonical("prefix:block=0").is_err_and(|e| e.contains("at least 1")));
        for text in [
            "prefix:block=128,min=1024,ttl=300,output=false",
            "breakpoints:min=4096,ttl=300,lookback=20,write=1.25",
        ] {
            assert_eq!(canonical(text).as_deref(), Ok(text));
        }
    }

    #[test]
    fn each_wrong_cache_is_its_own_variant() {
        let e = |t: &str| CacheMode::parse(t).err();
        assert_eq!(e("lru"), Some(CacheError::NotAMode { name: "lru".into() }));
        assert_eq!(
            e("prefix:block"),
            Some(CacheError::NotKeyValue {
                param: "block".into(),
                mode: "prefix".into()
            })
        );
        assert_eq!(
            e("prefix:ttl=5m"),
            Some(CacheError::NotWhole {
                key: "ttl".into(),
                value: "5m".into()
            })
        );
        assert_eq!(e("prefix:block=0"), Some(CacheError::NoBlock));
        assert_eq!(
            e("prefix:output=yes"),
            Some(CacheError::NotBool { value: "yes".into() })
        );
        assert_eq!(
            e("breakpoints:write=-1"),
            Some(CacheError::NotMultiple { value: "-1".into() })
        );
        assert_eq!(e("none:min=3"), Some(CacheError::NoParameters));
        assert_eq!(
            e("breakpoints:block=3"),
            Some(CacheError::UnknownParameter {
                mode: "breakpoints",
                key: "block".into(),
                known: "min, ttl, lookback, write"
            })
        );
    }
}
