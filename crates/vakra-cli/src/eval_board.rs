//! `vakra eval board REPORT...`: runs side by side on one page (crates/vakra-eval/src/render/board.rs).

use std::path::PathBuf;

use clap::Args;
use vakra_eval::render::BoardRun;

#[derive(Args)]
pub struct BoardArgs {
    /// The reports of the runs (`vakra eval --report`), in the order to show them.
    #[arg(required = true)]
    reports: Vec<PathBuf>,
    /// Write the board as an HTML page here.
    #[arg(long)]
    html: Option<PathBuf>,
    /// Write the board as Markdown here (printed when neither file is asked for).
    #[arg(long)]
    markdown: Option<PathBuf>,
}

pub fn run(args: BoardArgs) -> anyhow::Result<()> {
    let mut runs = Vec::new();
    for path in &args.reports {
        runs.push(BoardRun {
            name: path.display().to_string(),
            report: crate::eval_report::read(path)?,
        });
    }
    let markdown = vakra_eval::render::board_markdown(&runs);
    if let Some(path) = &args.html {
        crate::eval_report::write(path, &vakra_eval::render::board_html(&runs))?;
    }
    match &args.markdown {
        Some(path) => crate::eval_report::write(path, &markdown)?,
        None if args.html.is_none() => print!("{markdown}"),
        None => {}
    }
    Ok(())
}
