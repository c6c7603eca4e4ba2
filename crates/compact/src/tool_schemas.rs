//! A request's tool schemas: OpenAI's `tools` array, verbatim, with what each counter found
//! they cost. They stay the same call after call in an agent loop, so they are counted once;
//! they are never changed in place, so copies share one array.

use std::ops::Deref;
use std::sync::{Arc, LazyLock};

use serde_json::Value;

use crate::costs::{Costs, FINGERPRINT};

/// The `tools` array of a chat request (OpenAI function schemas), kept verbatim. Read it as a
/// slice of JSON values; to change it, build a new one (its cached costs go with the old).
#[derive(Clone, Debug, Default)]
pub struct ToolSchemas {
    list: Arc<[Value]>,
    costs: Costs,
}

/// No tools (a summary request's).
pub static NO_TOOLS: LazyLock<ToolSchemas> = LazyLock::new(ToolSchemas::default);

impl ToolSchemas {
    /// Wraps a `tools` array.
    pub fn new(list: Vec<Value>) -> ToolSchemas {
        ToolSchemas {
            list: list.into(),
            costs: Costs::new(),
        }
    }

    /// The schemas, in order.
    pub fn as_slice(&self) -> &[Value] {
        &self.list
    }

    /// A 64-bit hash of the array's canonical JSON, computed once, as [`crate::Message::fingerprint`].
    pub fn fingerprint(&self) -> u64 {
        self.costs
            .get_wide(FINGERPRINT, || crate::costs::fingerprint_of(&*self.list))
    }

    /// The cost a counter found for these schemas (in its `slot`), computing it the first time.
    pub(crate) fn cost(&self, slot: usize, compute: impl FnOnce() -> u64) -> u64 {
        self.costs.get(slot, compute)
    }
}

impl Deref for ToolSchemas {
    type Target = [Value];

    fn deref(&self) -> &[Value] {
        &self.list
    }
}

impl From<Vec<Value>> for ToolSchemas {
    fn from(list: Vec<Value>) -> ToolSchemas {
        ToolSchemas::new(list)
    }
}

impl PartialEq for ToolSchemas {
    fn eq(&self, other: &ToolSchemas) -> bool {
        self.list == other.list
    }
}
