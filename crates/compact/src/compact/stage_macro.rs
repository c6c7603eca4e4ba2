//! The `stages!` macro: from one declaration per stage, the [`StageSpec`](super::StageSpec)
//! enum, the [`STAGES`](super::STAGES) table `--help` reads, and each stage's defaults,
//! parameters, trigger, guard and call into its implementation.

macro_rules! stages {
    ($(
        $(#[doc = $doc:literal])*
        $variant:ident = $name:literal {
            $( $(#[doc = $pdoc:literal])* $field:ident : $ty:ty = $default:expr ),* $(,)?
        }
        alone: $alone:literal,
        fresh: $fresh:ident,
        when: $when:expr,
        run: |$work:ident, $cx:ident| $run:expr;
    )*) => {
        /// One stage of a pipeline, with its parameters.
        #[derive(Clone, Debug, PartialEq)]
        pub enum StageSpec {
            $(
                $(#[doc = $doc])*
                $variant {
                    $( $(#[doc = $pdoc])* $field: $ty, )*
                },
            )*
        }

        /// Every stage, in the order `--help` lists them.
        pub static STAGES: &[StageInfo] = &[
            $(
                StageInfo {
                    name: $name,
                    help: concat!($($doc),*),
                    params: &[$( param_info!($field: $ty = $default, [$($pdoc),*]), )*],
                    alone: $alone,
                    fresh: Fresh::$fresh,
                },
            )*
        ];

        impl StageSpec {
            /// The stage named `name`, with its defaults.
            pub fn default_of(name: &str) -> Option<StageSpec> {
                match name {
                    $( $name => Some(StageSpec::$variant { $( $field: $default, )* }), )*
                    _ => None,
                }
            }

            /// The stage's name without parameters.
            pub fn name(&self) -> &'static str {
                match self {
                    $( StageSpec::$variant { .. } => $name, )*
                }
            }

            /// Sets one parameter from its text.
            pub(crate) fn set(&mut self, key: &str, value: &str) -> Result<(), StrategyError> {
                let info = self.info();
                match self {
                    $(
                        #[allow(unused_variables)]
                        StageSpec::$variant { $( $field, )* } => {
                            $(
                                if key == stringify!($field) {
                                    *$field = Param::parse(value).ok_or_else(|| {
                                        err(format!(
                                            "{}.{key} must be {}, not `{value}`",
                                            $name,
                                            <$ty as Param>::EXPECTED
                                        ))
                                    })?;
                                    return Ok(());
                                }
                            )*
                        }
                    )*
                }
                Err(unknown_param(info, key))
            }

            /// When it runs.
            #[allow(unused_variables)]
            pub(crate) fn when(&self) -> When {
                match self {
                    $( StageSpec::$variant { $( $field, )* } => $when, )*
                }
            }

            /// Runs it on `work`; `false` when it cannot run here (`summarize` without a model).
            #[allow(unused_variables)]
            pub(crate) fn run(&self, work: &mut Work<'_>, cx: &mut StageContext<'_>) -> bool {
                match self {
                    $(
                        StageSpec::$variant { $( $field, )* } => {
                            let ($work, $cx) = (work, cx);
                            $run
                        }
                    )*
                }
            }
        }

        impl std::fmt::Display for StageSpec {
            /// The canonical name: every parameter, in the declared order.
            #[allow(unused_assignments, unused_mut, unused_variables)]
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                match self {
                    $(
                        StageSpec::$variant { $( $field, )* } => {
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
pub(crate) use stages;
