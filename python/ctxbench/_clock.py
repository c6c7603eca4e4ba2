"""``CacheClock``: what the provider's prompt cache knows, for ``trigger=cold`` stages.

A provider keeps a request's prefix for a while after the call that last used it (OpenAI about
5 minutes, Anthropic 5 minutes or an hour): past that, the next call pays for the whole request
anyway, so rewriting the history then costs no cache. No framework tells its hooks that; a clock
told of each model call does. The adapters in ``ctxbench.integrations`` tell it for you.
"""

import time

from ._native import cache_ttl


def _shown(value):
    """A value and its type, as a type error shows them: ``'300' (a str)``; ``None`` alone."""
    if value is None:
        return "None"
    kind = type(value).__name__
    return f"{value!r} ({'an' if kind[:1] in 'aeiou' else 'a'} {kind})"


def _seconds(value, name, takes):
    """A number of seconds (an int or a float, never a bool), or a ``TypeError`` that names
    ``name`` and says what it takes."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be {takes}, got {_shown(value)}")
    return value


class CacheClock:
    """The provider's prompt cache lifetime, and when the last model call ended.

    ``CacheClock(ttl_s)``, or ``CacheClock.for_price("claude-sonnet-4-6")`` for the cache of a
    model of ctxbench's price table (``ctxbench prices`` lists them). Call ``called()`` after each
    model call; ``cold()`` says whether a call now would find the cache expired. Times are
    ``now()`` seconds (wall-clock by default, so that a framework's timestamps can be given).
    """

    def __init__(self, ttl_s, *, now=time.time):
        if ttl_s is not None:
            takes = "the cache's lifetime, a number of seconds (0 or more), or None for no cache"
            if not _seconds(ttl_s, "ttl_s", takes) >= 0:
                raise ValueError(f"ttl_s must be {takes}, got {ttl_s!r}")
        if not callable(now):
            raise TypeError(f"now must be a function returning the time in seconds, such as time.time, got {_shown(now)}")
        self.ttl_s = ttl_s
        self.now = now
        self.last_call = None

    def _at(self, at):
        """``at``, or now: a time in seconds."""
        if at is None:
            now = self.now()
            if isinstance(now, bool) or not isinstance(now, (int, float)):
                raise TypeError(f"now() must return the time in seconds (a number), returned {_shown(now)}")
            return now
        return _seconds(at, "at", "a time in seconds, as now() gives it, or None for now")

    @classmethod
    def for_price(cls, name, *, now=time.time):
        """The clock of the cache that model ``name`` of ctxbench's price table implies."""
        return cls(cache_ttl(name), now=now)

    def called(self, at=None):
        """A model call ended (at ``at``, or now): the cache holds its request from then on."""
        self.last_call = self._at(at)

    def cold(self, at=None):
        """Whether a call at ``at`` (or now) would find the cache expired: longer than its
        lifetime since the last call ended. False before any call and without a cache, as in
        ctxbench's own loop."""
        if self.ttl_s is None or self.last_call is None:
            return False
        return self._at(at) - self.last_call > self.ttl_s

    def __repr__(self):
        return f"CacheClock(ttl_s={self.ttl_s!r}, last_call={self.last_call!r})"
