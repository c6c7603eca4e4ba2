//! The cache lifetime of a model of ctxbench's price table (the harness's `prices.toml`, the same
//! file `--price` reads), for `CacheClock.forPrice`: how long the provider keeps a prefix nobody
//! used. Read from the table's `cache` (`prefix:…,ttl=300,…`), so a price changed there changes
//! here. The Python package reads it the same way (crates/python/src/prices.rs).

use napi_derive::napi;
use serde::Deserialize;

use crate::errors::Refusal;

/// The table, as shipped.
const TABLE: &str = include_str!("../../harness/prices.toml");

#[derive(Deserialize)]
struct Table {
    model: Vec<Model>,
}

#[derive(Deserialize)]
struct Model {
    name: String,
    cache: String,
}

/// The seconds a prompt cache of model `name` keeps an unused prefix; null for a model whose
/// provider caches nothing. (The package checks that `name` is a string.)
#[napi(js_name = "cacheTtl")]
pub fn cache_ttl(name: String) -> napi::Result<Option<f64>> {
    Ok(ttl_of(&name)?)
}

fn ttl_of(name: &str) -> Result<Option<f64>, Refusal> {
    let table: Table = toml::from_str(TABLE).map_err(|e| Refusal::plain(format!("the shipped price table: {e}")))?;
    let Some(model) = table.model.iter().find(|m| m.name == name) else {
        let names: Vec<&str> = table.model.iter().map(|m| m.name.as_str()).collect();
        let hint = ctxbench_compact::nearest(name, &names).map_or(String::new(), |n| format!("did you mean {n}? "));
        return Err(Refusal::plain(format!(
            "{name:?} is not a model of ctxbench's price table; {hint}the models: {}",
            names.join(", ")
        )));
    };
    let params = model.cache.split_once(':').map_or("", |(_, p)| p);
    let ttl = params.split(',').find_map(|p| p.trim().strip_prefix("ttl="));
    match (model.cache.trim(), ttl) {
        ("none", _) => Ok(None),
        (_, Some(ttl)) => ttl
            .parse::<f64>()
            .map(Some)
            .map_err(|_| Refusal::plain(format!("{name}: its cache's ttl {ttl:?} is not a number"))),
        (cache, None) => Err(Refusal::plain(format!("{name}: its cache {cache:?} says no ttl"))),
    }
}
