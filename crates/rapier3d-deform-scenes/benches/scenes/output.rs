//! Scene report output: the stdout table, `--json`, `--csv` and the `--plot` PNG chart.

use super::runner::{FrameTable, PlotSpec, SceneReport};
use std::fmt::Write as _;
use std::path::Path;

/// The machine the numbers come from: CPU model (from `/proc/cpuinfo`) and logical core count.
pub fn machine() -> String {
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    format!("{model}, {cores} cores")
}

/// The 1-minute load average from `/proc/loadavg`, if readable: timings taken with a load above
/// the core count are inflated by preemption.
pub fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// A number as JSON: integers without a fraction, non-finite values as `null`.
fn json_number(x: f64) -> String {
    if !x.is_finite() {
        "null".to_string()
    } else if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The JSON document of the scene contract:
/// `{"scene": ..., "quick": ..., "machine": ..., "metrics": {name: number, ...}}`.
pub fn to_json(report: &SceneReport, quick: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{{");
    let _ = writeln!(out, "  \"scene\": {},", json_string(report.scene));
    let _ = writeln!(out, "  \"quick\": {quick},");
    let _ = writeln!(out, "  \"machine\": {},", json_string(&machine()));
    let _ = writeln!(out, "  \"metrics\": {{");
    for (i, m) in report.metrics.iter().enumerate() {
        let comma = if i + 1 < report.metrics.len() {
            ","
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "    {}: {}{comma}",
            json_string(m.name),
            json_number(m.value)
        );
    }
    let _ = writeln!(out, "  }}");
    let _ = writeln!(out, "}}");
    out
}

/// The frame table as CSV (header line, then one line per frame).
pub fn to_csv(frames: &FrameTable) -> String {
    let mut out = frames.columns.join(",");
    out.push('\n');
    for row in &frames.rows {
        let cells: Vec<String> = row
            .iter()
            .map(|x| {
                if x.is_finite() {
                    format!("{x}")
                } else {
                    String::new()
                }
            })
            .collect();
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    out
}

fn format_value(x: f64) -> String {
    if !x.is_finite() {
        "n/a".to_string()
    } else if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else if x.abs() >= 100.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.4}")
    }
}

fn print_table(header: &[String], rows: &[Vec<String>]) {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            if i < widths.len() {
                widths[i] = widths[i].max(cell.chars().count());
            }
        }
    }
    let line = |cells: &[String]| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(i, (c, &w))| {
                // First column left-aligned (names), the rest right-aligned (numbers) except the
                // last column when it is free text.
                if i == 0 || i + 1 == widths.len() && header.last().is_some_and(|h| h == "meaning")
                {
                    format!("{c:<w$}")
                } else {
                    format!("{c:>w$}")
                }
            })
            .collect();
        println!("  {}", padded.join("  ").trim_end());
    };
    line(header);
    let rule: Vec<String> = widths.iter().map(|&w| "-".repeat(w)).collect();
    line(&rule);
    for row in rows {
        line(row);
    }
}

/// Prints the report as readable tables.
pub fn print_report(report: &SceneReport, quick: bool) {
    println!();
    println!(
        "scene `{}`{} on {}",
        report.scene,
        if quick { " (--quick)" } else { "" },
        machine()
    );
    if let Some(load) = load_average() {
        println!("load average (1 min) at the end of the run: {load:.2}");
    }
    let header = ["metric", "value", "meaning"].map(String::from);
    let rows: Vec<Vec<String>> = report
        .metrics
        .iter()
        .map(|m| vec![m.name.to_string(), format_value(m.value), m.note.clone()])
        .collect();
    print_table(&header, &rows);
    for section in &report.sections {
        println!();
        println!("{}", section.title);
        print_table(&section.header, &section.rows);
    }
}

/// Writes `contents` to `path`, creating missing parent directories.
pub fn write_file(path: &Path, contents: &[u8]) -> Result<(), String> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    }
    std::fs::write(path, contents).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// An axis tick label: `2e5` style from 10⁴, integers from 10, two decimals below.
fn short_number(y: f64) -> String {
    let a = y.abs();
    if a >= 1e4 {
        format!("{y:.0e}")
    } else if a >= 10.0 || a == 0.0 {
        format!("{y:.0}")
    } else {
        format!("{y:.2}")
    }
}

/// Draws the chosen frame-table columns against column 0 as a PNG line chart.
///
/// # Errors
/// A message when the table has nothing to draw or the file cannot be written.
pub fn write_plot(path: &Path, frames: &FrameTable, spec: &PlotSpec) -> Result<(), String> {
    use plotters::prelude::*;

    if frames.rows.is_empty() || spec.series.is_empty() {
        return Err("nothing to plot: the scene produced no per-frame rows".to_string());
    }
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    }
    let xs: Vec<f64> = frames.rows.iter().map(|r| r[0]).collect();
    let (x_lo, x_hi) = xs
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
    let x_hi = if x_hi > x_lo { x_hi } else { x_lo + 1.0 };
    let ys = spec
        .series
        .iter()
        .flat_map(|&c| frames.rows.iter().map(move |r| r[c]))
        .filter(|y| y.is_finite() && (!spec.log_y || *y > 0.0));
    let (y_lo, y_hi) = ys.fold((f64::MAX, f64::MIN), |(a, b), y| (a.min(y), b.max(y)));
    if y_lo > y_hi {
        return Err("nothing to plot: no finite values".to_string());
    }
    // One tick per frame for short runs (integer labels must not repeat), at most 12.
    let x_ticks = frames.rows.len().clamp(2, 12);
    let err = |e: &dyn std::fmt::Display| format!("plot {}: {e}", path.display());

    // Text with the renderer's embedded font: no system fonts needed.
    plotters::style::register_font(
        "sans-serif",
        FontStyle::Normal,
        rapier3d_deform_scenes::render::REGULAR_TTF,
    )
    .map_err(|_| err(&"the embedded font does not parse"))?;
    let root = BitMapBackend::new(path, (1024, 640)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let colours = [
        RED,
        BLUE,
        GREEN,
        MAGENTA,
        CYAN,
        BLACK,
        RGBColor(230, 140, 0),
        RGBColor(120, 70, 20),
        RGBColor(130, 130, 130),
    ];
    let mut chart = ChartBuilder::on(&root);
    chart
        .caption(&spec.title, ("sans-serif", 24))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(80);

    // Both branches draw the same series; the coordinate type differs (linear or log y).
    macro_rules! draw {
        ($chart:expr) => {{
            let mut chart = $chart;
            chart
                .configure_mesh()
                .x_desc(frames.columns[0].as_str())
                .y_desc(spec.y_label.as_str())
                .x_labels(x_ticks)
                .x_label_formatter(&|x| format!("{x:.0}"))
                .y_label_formatter(&|y| short_number(*y))
                .draw()
                .map_err(|e| err(&e))?;
            for (i, &c) in spec.series.iter().enumerate() {
                let colour = colours[i % colours.len()];
                let points: Vec<(f64, f64)> = frames
                    .rows
                    .iter()
                    .map(|r| (r[0], r[c]))
                    .filter(|(_, y)| y.is_finite() && (!spec.log_y || *y > 0.0))
                    .collect();
                chart
                    .draw_series(LineSeries::new(points, colour.stroke_width(2)))
                    .map_err(|e| err(&e))?
                    .label(frames.columns[c].as_str())
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2))
                    });
            }
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .position(SeriesLabelPosition::UpperRight)
                .draw()
                .map_err(|e| err(&e))?;
        }};
    }
    if spec.log_y {
        // Whole decades, so that the axis has labelled ticks however narrow the data.
        let lo = 10f64.powf(y_lo.log10().floor());
        let hi = 10f64.powf(y_hi.log10().ceil()).max(lo * 10.0);
        draw!(
            chart
                .build_cartesian_2d(x_lo..x_hi, (lo..hi).log_scale())
                .map_err(|e| err(&e))?
        );
    } else {
        let pad = ((y_hi - y_lo) * 0.05).max(1e-9);
        draw!(
            chart
                .build_cartesian_2d(x_lo..x_hi, (y_lo - pad)..(y_hi + pad))
                .map_err(|e| err(&e))?
        );
    }
    root.present().map_err(|e| err(&e))?;
    Ok(())
}
