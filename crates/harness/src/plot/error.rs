//! Why a chart could not be drawn: [`DrawError`] names the chart, [`PlotError`] says what went
//! wrong.

/// Why a chart could not be drawn.
#[derive(Debug, thiserror::Error)]
#[error("cannot draw chart {chart}: {error}")]
pub struct DrawError {
    /// The chart's name.
    pub chart: String,
    /// What went wrong (said in this message, so not its source).
    pub error: PlotError,
}

/// What went wrong drawing a chart.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// The font embedded in the binary does not load (never in practice).
    #[error("the embedded DejaVu Sans font does not load")]
    Font,
    /// The drawing backend refused, in plotters' words (its error type is the backend's).
    #[error("{0}")]
    Backend(String),
    /// The PNG encoder refused.
    #[error("{0}")]
    Png(::png::EncodingError),
}
