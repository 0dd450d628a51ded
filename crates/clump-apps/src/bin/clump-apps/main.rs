//! `clump-apps <app> [options]`: one of the Split-C evaluations' applications, run under
//! `clump run`. Every rank generates its part of the input from the seed, the run is timed in
//! phases, and the result is checked against the sequential computation: rank 0 prints one
//! `RESULT` line, and a wrong answer on any rank fails the job.

#![forbid(unsafe_code)]

mod con;
mod em3d;
mod fft;
mod matmul;
mod radixsort;
mod run;
mod samplesort;
mod verify;

use clap::{Parser, Subcommand};
use clump_apps::con::Graph;
use clump_apps::layout::Layout;
use clump_apps::{con::ConParams, em3d::Em3dParams, matmul::MatmulParams, sort::SortParams};

#[derive(Parser)]
#[command(
    name = "clump-apps",
    about = "The Split-C papers' applications on clump's global address space"
)]
struct Cli {
    #[command(subcommand)]
    app: App,
    /// Seed of the generated input.
    #[arg(long, global = true, default_value_t = 1)]
    seed: u64,
    /// How the result is checked: in full (every rank recomputes the whole problem), each
    /// rank its own part (scales), or auto: in full while the problem is small.
    #[arg(long, global = true, value_enum, default_value_t = verify::Check::Auto)]
    check: verify::Check,
}

/// Paper 004's two versions of the sorts: every key its own message, or keys in bulk.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Grain {
    Small,
    Bulk,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum GraphKind {
    Random,
    Lattice2d,
    Lattice3d,
}

#[derive(Subcommand)]
enum App {
    /// Bipartite E/H graph relaxation on a 3-D spatial graph (paper 001; its defaults).
    Em3d {
        /// E nodes (and H nodes) per rank.
        #[arg(long, default_value_t = 2500)]
        nodes: usize,
        #[arg(long, default_value_t = 20)]
        degree: usize,
        /// Fraction of edges to another rank's nodes.
        #[arg(long, default_value_t = 0.4)]
        remote: f64,
        /// How many blocks away a remote neighbour's process may be, counting steps along the
        /// axes (1: the blocks sharing a face).
        #[arg(long, default_value_t = 1)]
        span: usize,
        #[arg(long, default_value_t = 10)]
        steps: usize,
        #[arg(long, value_enum, default_value_t = em3d::Version::Bulk)]
        version: em3d::Version,
        /// How processes fill the space: naive (row-major) or good (a host's processes in
        /// a block as near a cube as possible).
        #[arg(long, value_enum, default_value_t = Layout::Naive)]
        layout: Layout,
        /// Processes to a host for the layout (default: as many as share rank 0's host).
        #[arg(long)]
        host_ranks: Option<usize>,
    },
    /// Connected components of a random graph (paper 001).
    Con {
        /// Vertices per rank (a lattice's: a square or a cube; the default is the paper's
        /// communication-bound run, 80^3).
        #[arg(long, default_value_t = 512_000)]
        vertices: usize,
        /// The graph: a 2-D or 3-D lattice (the paper's) or a random graph.
        #[arg(long, value_enum, default_value_t = GraphKind::Lattice3d)]
        graph: GraphKind,
        /// A lattice's share of neighbouring sites joined by an edge.
        #[arg(long, default_value_t = 0.25)]
        present: f64,
        /// A random graph's edges per rank.
        #[arg(long, default_value_t = 8000)]
        edges: usize,
        /// A random graph's share of edges to another rank's vertices.
        #[arg(long, default_value_t = 0.1)]
        remote: f64,
    },
    /// 3-D FFT of an n×n×n complex array with all-to-all transposes by bulk stores (paper 001).
    Fft {
        /// Side (a power of two, a multiple of the number of ranks).
        #[arg(long, default_value_t = 32)]
        n: usize,
    },
    /// Blocked matrix multiply with bulk gets (paper 004).
    Matmul {
        /// Blocks per side.
        #[arg(long, default_value_t = 4)]
        blocks: usize,
        /// Block side.
        #[arg(long, default_value_t = 32)]
        block: usize,
    },
    /// Sample sort of 64-bit keys (paper 004).
    Samplesort {
        /// Keys per rank.
        #[arg(long, default_value_t = 100000)]
        keys: usize,
        #[arg(long, value_enum, default_value_t = Grain::Bulk)]
        version: Grain,
    },
    /// Radix sort of 64-bit keys, 8 bits a pass (paper 004).
    Radixsort {
        /// Keys per rank.
        #[arg(long, default_value_t = 100000)]
        keys: usize,
        #[arg(long, value_enum, default_value_t = Grain::Bulk)]
        version: Grain,
    },
}

fn main() {
    let cli = Cli::parse();
    if let Err(e) = run_app(cli) {
        eprintln!("clump-apps: {e}");
        std::process::exit(1);
    }
}

fn run_app(cli: Cli) -> run::AppResult<()> {
    let mut gas = start_gas(&cli.app)?;
    let (seed, check) = (cli.seed, cli.check);
    match cli.app {
        App::Em3d {
            nodes,
            degree,
            remote,
            span,
            steps,
            version,
            layout,
            host_ranks,
        } => {
            if !(0.0..=1.0).contains(&remote) || degree == 0 || nodes == 0 {
                return Err("em3d: needs nodes > 0, degree > 0 and 0 <= remote <= 1".into());
            }
            em3d::run(
                &mut gas,
                Em3dParams {
                    nodes,
                    degree,
                    remote,
                    span,
                    steps,
                    seed,
                },
                version,
                layout,
                host_ranks,
                check,
            )
        }
        App::Con {
            vertices,
            graph,
            present,
            edges,
            remote,
        } => {
            let params = con_params(vertices, graph, present, edges, remote, seed)?;
            con::run(&mut gas, params, check)
        }
        App::Fft { n } => fft::run(&mut gas, n, seed, check),
        App::Matmul { blocks, block } => matmul::run(
            &mut gas,
            MatmulParams {
                blocks,
                block,
                seed,
            },
        ),
        App::Samplesort { keys, version } => {
            samplesort::run(&mut gas, SortParams { keys, seed }, version, check)
        }
        App::Radixsort { keys, version } => {
            radixsort::run(&mut gas, SortParams { keys, seed }, version, check)
        }
    }
}

/// Joins the job with the segment `app` needs: the configured one, or, where none was
/// given, one large enough for the FFT's two arrays.
fn start_gas(app: &App) -> run::AppResult<clump_gas::Gas> {
    let vars = clump_gas::GasVars::from_env().map_err(|e| e.to_string())?;
    let mut config = clump_gas::GasConfig::of(&vars)?;
    if !vars.segment_given {
        // The FFT's two arrays outgrow the default segment at the papers' size (256³: 512 MiB
        // on one process); pages are only taken where the arrays lie.
        if let App::Fft { n } = *app {
            let need = n
                .saturating_pow(3)
                .saturating_mul(32)
                .saturating_add(1 << 20);
            config.segment_bytes = config.segment_bytes.max(need.min(1 << 30));
        }
    }
    Ok(clump_gas::Gas::init_with(config)?)
}

/// CON's parameters from its options, checked.
fn con_params(
    vertices: usize,
    graph: GraphKind,
    present: f64,
    edges: usize,
    remote: f64,
    seed: u64,
) -> run::AppResult<ConParams> {
    if !(0.0..=1.0).contains(&remote) || !(0.0..=1.0).contains(&present) || vertices == 0 {
        return Err("con: needs vertices > 0, 0 <= remote <= 1 and 0 <= present <= 1".into());
    }
    let graph = match graph {
        GraphKind::Random => Graph::Random { edges, remote },
        GraphKind::Lattice2d => Graph::Lattice { dims: 2, present },
        GraphKind::Lattice3d => Graph::Lattice { dims: 3, present },
    };
    let params = ConParams {
        vertices,
        graph,
        seed,
    };
    if let Graph::Lattice { .. } = graph {
        params.side().map_err(|e| format!("con: {e}"))?;
    }
    Ok(params)
}
