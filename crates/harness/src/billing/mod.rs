//! The real bill's parts, as settings: what tokens cost ([`price`], from the table shipped in
//! `prices.toml`), the prompt cache a provider runs ([`cache`]), how long a call takes
//! ([`latency`]), the cache figures a provider logs ([`logged`]), and a request as a prefix cache sees it ([`segments`]).

pub mod cache;
pub mod latency;
pub mod logged;
pub mod price;
pub mod segments;
