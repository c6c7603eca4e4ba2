//! Each wrong price and cache is its own error, said in the words the CLI prints.

use super::error::{CacheError, PriceError};
use super::price::{Price, parse_table};

#[test]
fn each_wrong_price_is_its_own_variant() {
    let no_file = |f: &str| Err(format!("{f}: no such file"));
    let e = |text: &str| Price::parse(text, &no_file).err();
    assert_eq!(
        e("mine.toml"),
        Some(PriceError::Unread("mine.toml: no such file".into()))
    );
    assert!(matches!(e("gpt-9"), Some(PriceError::NotInTable { name, .. }) if name == "gpt-9"));
    assert_eq!(
        e("input=1;output=2"),
        Some(PriceError::Separator {
            text: "input=1;output=2".into(),
            separator: ';'
        })
    );
    assert_eq!(
        e("input=1,output"),
        Some(PriceError::NotKeyValue { part: "output".into() })
    );
    assert_eq!(
        e("input=1,speed=2"),
        Some(PriceError::UnknownKey { key: "speed".into() })
    );
    assert_eq!(
        e("input=1,output=-2"),
        Some(PriceError::NotARate {
            key: "output".into(),
            value: "-2".into()
        })
    );
    assert_eq!(e("input=1"), Some(PriceError::Incomplete));
    let table = |_: &str| Ok(include_str!("../../prices.toml").to_owned());
    assert!(matches!(
        Price::parse("mine.toml", &table),
        Err(PriceError::Several { file, names }) if file == "mine.toml" && names.len() == Price::table().len()
    ));
    assert_eq!(
        Price::parse("mine.toml#gpt-9", &table).err(),
        Some(PriceError::NoModel {
            file: "mine.toml".into(),
            name: "gpt-9".into()
        })
    );
    let profiles = |_: &str| Ok("[summarizer.mine]\nabout = \"x\"\n".to_owned());
    assert_eq!(
        Price::parse("mine.toml", &profiles).err(),
        Some(PriceError::Profiles {
            file: "mine.toml".into()
        })
    );
    let bad = "[[model]]\nname = \"m\"\ninput = -1\ncache_read = 0\ncache_write = 0\noutput = 1\ncache = \"lru\"\n";
    assert_eq!(
        parse_table(bad, "bad.toml").err(),
        Some(PriceError::Cache {
            model: "m".into(),
            error: CacheError::NotAMode { name: "lru".into() }
        })
    );
    let bad = bad.replace("cache = \"lru\"\n", "");
    assert_eq!(
        parse_table(&bad, "bad.toml").err(),
        Some(PriceError::NotAPrice {
            model: "m".into(),
            what: "input",
            value: -1.0
        })
    );
    assert!(matches!(
        parse_table("[[model]]\nname = 3\n", "bad.toml"),
        Err(PriceError::Toml(_))
    ));
}
