//! The scene runner's core: options, the scene registry type, reports, argument parsing and timing helpers.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

/// What the command line asked of a scene run.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Shrink sizes so the scene finishes in seconds (CI smoke run).
    pub quick: bool,
    /// Where to write the metrics as JSON.
    pub json: Option<PathBuf>,
    /// Where to write the per-frame figures as CSV.
    pub csv: Option<PathBuf>,
    /// Where to write a PNG chart of the per-frame figures.
    pub plot: Option<PathBuf>,
}

/// A named benchmark scene.
pub struct Scene {
    /// Name used on the command line.
    pub name: &'static str,
    /// One-line description for `--list`.
    pub description: &'static str,
    /// Runs the scene and reports its figures.
    pub run: fn(&RunOptions) -> SceneReport,
}

/// One named number of a scene (the keys of the JSON `metrics` object).
#[derive(Clone, Debug)]
pub struct Metric {
    /// Exact name, as the issue that asks for it spells it.
    pub name: &'static str,
    /// Value (integers are written without a fraction).
    pub value: f64,
    /// Short human explanation for the stdout table.
    pub note: String,
}

/// An extra table printed to stdout (e.g. a breakdown by tree depth).
#[derive(Clone, Debug, Default)]
pub struct Section {
    /// Title line.
    pub title: String,
    /// Column headers.
    pub header: Vec<String>,
    /// Rows, already formatted.
    pub rows: Vec<Vec<String>>,
}

/// Per-frame figures: one row per frame, written by `--csv` and drawn by `--plot`.
#[derive(Clone, Debug, Default)]
pub struct FrameTable {
    /// Column names; column 0 is the x axis of the plot.
    pub columns: Vec<String>,
    /// One row per frame, `columns.len()` values each.
    pub rows: Vec<Vec<f64>>,
}

/// How `--plot` draws the frame table.
#[derive(Clone, Debug)]
pub struct PlotSpec {
    /// Chart caption.
    pub title: String,
    /// Label of the y axis.
    pub y_label: String,
    /// Frame-table columns drawn as lines (x is column 0).
    pub series: Vec<usize>,
    /// Logarithmic y axis (for times that differ by orders of magnitude).
    pub log_y: bool,
}

/// Everything a scene reports.
#[derive(Clone, Debug)]
pub struct SceneReport {
    /// The scene's name.
    pub scene: &'static str,
    /// The headline numbers (JSON `metrics`).
    pub metrics: Vec<Metric>,
    /// Extra stdout tables.
    pub sections: Vec<Section>,
    /// Per-frame figures.
    pub frames: FrameTable,
    /// How to chart the frames, if the scene has a chart.
    pub plot: Option<PlotSpec>,
}

impl SceneReport {
    /// An empty report for `scene`.
    pub fn new(scene: &'static str) -> Self {
        Self {
            scene,
            metrics: Vec::new(),
            sections: Vec::new(),
            frames: FrameTable::default(),
            plot: None,
        }
    }

    /// Appends a metric.
    pub fn metric(&mut self, name: &'static str, value: f64, note: impl Into<String>) {
        self.metrics.push(Metric {
            name,
            value,
            note: note.into(),
        });
    }
}

/// The parsed command line.
#[derive(Clone, Debug, Default)]
pub struct Command {
    /// `--list` was given.
    pub list: bool,
    /// `--help` was given.
    pub help: bool,
    /// Scene names in order (`all` expanded by the caller).
    pub scenes: Vec<String>,
    /// Options shared by every scene.
    pub options: RunOptions,
    /// Flags that were not understood (reported, then ignored; cargo passes `--bench`).
    pub ignored: Vec<String>,
}

/// Parses `<scene>... [--quick] [--json PATH] [--csv PATH] [--plot PATH] [--list]`; also accepts
/// `--flag=PATH`. Unknown flags (such as the `--bench` cargo passes) are collected in
/// [`Command::ignored`].
///
/// # Errors
/// A message when a path flag has no value.
pub fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Command, String> {
    let mut cmd = Command::default();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let slot = match flag.as_str() {
            "--json" => Some(&mut cmd.options.json),
            "--csv" => Some(&mut cmd.options.csv),
            "--plot" => Some(&mut cmd.options.plot),
            _ => None,
        };
        if let Some(slot) = slot {
            let value = match inline {
                Some(v) => v,
                None => args
                    .next()
                    .filter(|v| !v.starts_with("--"))
                    .ok_or_else(|| format!("{flag} needs a file path"))?,
            };
            *slot = Some(PathBuf::from(value));
            continue;
        }
        match flag.as_str() {
            "--quick" => cmd.options.quick = true,
            "--list" => cmd.list = true,
            "--help" | "-h" => cmd.help = true,
            f if f.starts_with('-') => cmd.ignored.push(arg),
            _ => cmd.scenes.push(arg),
        }
    }
    Ok(cmd)
}

/// Median of `xs` (NaN for an empty slice); sorts `xs`.
pub fn median(xs: &mut [f64]) -> f64 {
    percentile(xs, 0.5)
}

/// The `q`-quantile of `xs` by linear interpolation between order statistics (NaN when empty);
/// sorts `xs`.
pub fn percentile(xs: &mut [f64], q: f64) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    xs.sort_by(f64::total_cmp);
    let pos = q.clamp(0.0, 1.0) * (xs.len() - 1) as f64;
    let (i, frac) = (pos.floor() as usize, pos.fract());
    let j = (i + 1).min(xs.len() - 1);
    xs[i] + (xs[j] - xs[i]) * frac
}

/// Nanoseconds per call of `f`, averaged over one batch of `reps` back-to-back calls. The result
/// of every call goes through [`black_box`] so the work cannot be optimised away.
#[inline(never)]
pub fn time_per_call<R>(reps: u32, mut f: impl FnMut() -> R) -> f64 {
    let start = Instant::now();
    for _ in 0..reps {
        black_box(f());
    }
    start.elapsed().as_nanos() as f64 / reps.max(1) as f64
}

/// How many back-to-back calls of `f` fill about `target_ns` nanoseconds (at least 1), so that
/// timer resolution does not dominate ns-scale measurements.
pub fn calibrate<R>(target_ns: f64, mut f: impl FnMut() -> R) -> u32 {
    let mut reps = 1u32;
    loop {
        let per_call = time_per_call(reps, &mut f);
        if per_call * reps as f64 >= target_ns / 4.0 || reps >= 1 << 24 {
            let want = (target_ns / per_call.max(0.1)).ceil();
            return want.clamp(1.0, (1u32 << 24) as f64) as u32;
        }
        reps *= 4;
    }
}

/// A rayon pool of `threads` threads, for the scenes' one- and two-thread comparisons.
#[cfg(feature = "parallel")]
pub fn rayon_pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap_or_else(|e| panic!("rayon pool of {threads} threads: {e}"))
}

/// A 60 Hz frame (ms).
pub const FRAME_MS: f64 = 1000.0 / 60.0;

/// The largest body count whose step fits a 60 Hz frame, from `(count, ms per step)` in
/// increasing count; when even the largest count fits, extrapolated linearly from its ms per
/// body (`true` then).
pub fn max_at_60hz(per_count: &[(usize, f64)]) -> (f64, bool) {
    let fits: Vec<usize> = per_count
        .iter()
        .filter(|(_, ms)| *ms <= FRAME_MS)
        .map(|(n, _)| *n)
        .collect();
    match per_count.last() {
        Some(&(n, ms)) if fits.contains(&n) && ms > 0.0 => {
            ((FRAME_MS / (ms / n as f64)).floor(), true)
        }
        _ => (fits.iter().copied().max().unwrap_or(0) as f64, false),
    }
}
