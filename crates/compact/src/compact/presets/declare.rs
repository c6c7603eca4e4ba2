//! The macro that declares the presets: from each one's parameters, checks, stages, level,
//! sources and assumptions, the `Preset` enum, the `PRESETS` table, and the code that reads,
//! checks and writes a preset's name.

macro_rules! presets {
    ($(
        $(#[doc = $doc:literal])*
        $variant:ident = $name:literal {
            $( $(#[doc = $pdoc:literal])* $field:ident : $ty:ty = $default:expr ),* $(,)?
        }
        check: $check:expr,
        stages: $stages:expr,
        level: |$window:ident| $level:expr,
        sources: [$($source:expr),* $(,)?],
        assumptions: [$($assumption:literal),* $(,)?];
    )*) => {
        /// A preset with its parameters.
        #[derive(Clone, Debug, PartialEq)]
        pub enum Preset {
            $(
                $(#[doc = $doc])*
                $variant {
                    $( $(#[doc = $pdoc])* $field: $ty, )*
                },
            )*
        }

        /// Every preset, in the order `ctxbench presets` lists them.
        pub static PRESETS: &[PresetInfo] = &[
            $(
                PresetInfo {
                    name: $name,
                    help: concat!($($doc),*),
                    params: &[$( param_info!($field: $ty = $default, [$($pdoc),*]), )*],
                    sources: &[$($source),*],
                    assumptions: &[$($assumption),*],
                },
            )*
        ];

        impl Preset {
            /// The preset named `name`, with its defaults.
            pub fn default_of(name: &str) -> Option<Preset> {
                match name {
                    $( $name => Some(Preset::$variant { $( $field: $default, )* }), )*
                    _ => None,
                }
            }

            /// Its name.
            pub fn name(&self) -> &'static str {
                match self {
                    $( Preset::$variant { .. } => $name, )*
                }
            }

            /// Sets one parameter from its text ([`Preset::check`] the whole afterwards).
            pub(crate) fn set(&mut self, key: &str, value: &str) -> Result<(), StrategyError> {
                let info = self.info();
                let mut found = false;
                match self {
                    $(
                        #[allow(unused_variables)]
                        Preset::$variant { $( $field, )* } => {
                            $(
                                if key == stringify!($field) {
                                    *$field = Param::parse(value).ok_or_else(|| {
                                        err(format!(
                                            "{}.{key} must be {}, not `{value}`",
                                            $name,
                                            <$ty as Param>::EXPECTED
                                        ))
                                    })?;
                                    found = true;
                                }
                            )*
                        }
                    )*
                }
                if !found {
                    let known: Vec<&str> = info.params.iter().map(|p| p.key).collect();
                    return Err(err(format!(
                        "preset `{}` has no parameter `{key}`; its parameters: {}",
                        info.name,
                        known.join(", ")
                    )));
                }
                Ok(())
            }

            /// Whether its parameters are ones its vendor accepts.
            #[allow(unused_variables)]
            pub(crate) fn check(&self) -> Result<(), StrategyError> {
                match self {
                    $( Preset::$variant { $( $field, )* } => $check, )*
                }
            }

            /// The library's stages it stands for.
            #[allow(unused_variables)]
            pub fn stages(&self) -> Vec<StageSpec> {
                match self {
                    $( Preset::$variant { $( $field, )* } => $stages, )*
                }
            }

            /// The estimate it compacts at on a `window`, when it has one (what `cannot_fit` and
            /// the charts hold a request to); `None` when it compacts on counts.
            #[allow(unused_variables)]
            pub fn level(&self, window: u64) -> Option<u64> {
                match self {
                    $( Preset::$variant { $( $field, )* } => { let $window = window; $level } )*
                }
            }
        }

        impl fmt::Display for Preset {
            /// The canonical name: every parameter, in the declared order.
            #[allow(unused_assignments, unused_mut, unused_variables)]
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self {
                    $(
                        Preset::$variant { $( $field, )* } => {
                            f.write_str($name)?;
                            let mut separator = ':';
                            $(
                                write!(f, "{separator}{}=", stringify!($field))?;
                                $field.write(f)?;
                                separator = ',';
                            )*
                            Ok(())
                        }
                    )*
                }
            }
        }
    };
}
