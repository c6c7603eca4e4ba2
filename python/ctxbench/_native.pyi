"""Type stubs of ``ctxbench._native``, the Rust module (crates/python) the package wraps: every
name it holds, with its signature as the module declares it (a test holds the two together).
Messages are dicts in the form ``format`` names (OpenAI chat, Anthropic Messages or OpenAI
Responses), tool schemas dicts; a summary request is a dict (``system``, ``messages``, ``tools``,
``keep``, ``ratio``, ``span``, ``estimated_tokens``, ``limit``, ``attempt``)."""

from typing import Any, Callable, Dict, Iterable, List, Optional, Protocol, Tuple, Union, final

__all__ = [
    "Compactor",
    "CompactReport",
    "count_tokens",
    "check_pairing",
    "cache_ttl",
    "strategies",
    "PairingError",
    "__version__",
]
__version__: str

_Message = Dict[str, Any]

class _Clock(Protocol):
    """Anything with ``cold()``, such as ``ctxbench.CacheClock``."""

    def cold(self) -> bool: ...

class PairingError(ValueError):
    """A history that breaks the pairing rule; the message says which message."""

@final
class CompactReport:
    """What one compaction did."""

    @property
    def strategy(self) -> str: ...
    @property
    def estimator(self) -> str: ...
    @property
    def tokens_before(self) -> int: ...
    @property
    def tokens_after(self) -> int: ...
    @property
    def limit(self) -> int: ...
    @property
    def window(self) -> int: ...
    @property
    def messages_before(self) -> int: ...
    @property
    def messages_after(self) -> int: ...
    @property
    def truncated(self) -> int: ...
    @property
    def masked(self) -> int: ...
    @property
    def dropped(self) -> int: ...
    @property
    def summary_calls(self) -> int: ...
    @property
    def cannot_fit(self) -> bool: ...
    @property
    def changed(self) -> bool: ...
    @property
    def stages(self) -> List[Dict[str, Any]]: ...
    @property
    def sources(self) -> Optional[List[Optional[int]]]: ...
    def to_dict(self) -> Dict[str, Any]: ...

class Compactor:
    """One conversation's compactor (``ctxbench.Compactor`` adds async summaries)."""

    def __new__(
        cls,
        strategy: str,
        window: int,
        threshold: float = 0.8,
        target: Optional[float] = None,
        keep: int = 2,
        reply_reserve: int = 0,
        estimator: str = "chars4",
        format: str = "chat",
    ) -> "Compactor": ...
    def compact(
        self,
        messages: Iterable[_Message],
        *,
        cache_cold: Union[bool, _Clock, None] = None,
        summarize: Optional[Callable[[Dict[str, Any]], Optional[str]]] = None,
        system: Any = None,
        tools: Optional[Iterable[Dict[str, Any]]] = None,
    ) -> Tuple[List[_Message], CompactReport]: ...
    @property
    def strategy(self) -> str: ...
    @property
    def window(self) -> int: ...
    @property
    def threshold(self) -> float: ...
    @property
    def target(self) -> Optional[float]: ...
    @property
    def keep(self) -> int: ...
    @property
    def reply_reserve(self) -> int: ...
    @property
    def estimator(self) -> str: ...
    @property
    def format(self) -> str: ...
    @property
    def limit(self) -> int: ...

def count_tokens(
    messages: Iterable[_Message],
    tokenizer: str = "o200k",
    format: str = "chat",
    *,
    tools: Optional[Iterable[Dict[str, Any]]] = None,
    system: Any = None,
) -> int: ...
def check_pairing(messages: Iterable[_Message], format: str = "chat") -> int: ...
def cache_ttl(name: str) -> Optional[float]: ...
def strategies() -> str: ...
