//! Which transport a benchmark measures, and how the launcher is asked for it.

/// The transport between a benchmark's processes.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum BenchTransport {
    /// Shared memory: every process on one host.
    Shm,
    /// UDP between all processes, each its own virtual host (`clump run --transport udp`).
    Udp,
    /// Two virtual hosts, the layer choosing the protocol per destination
    /// (`clump run --hosts 2`).
    Auto,
}

impl BenchTransport {
    pub fn name(self) -> &'static str {
        match self {
            BenchTransport::Shm => "shm",
            BenchTransport::Udp => "udp",
            BenchTransport::Auto => "auto",
        }
    }

    pub fn is_network(self) -> bool {
        self != BenchTransport::Shm
    }

    /// The `clump run` arguments that place the processes for this transport.
    pub fn launcher_args(self) -> &'static [&'static str] {
        match self {
            BenchTransport::Shm => &["--transport", "shm"],
            BenchTransport::Udp => &["--transport", "udp"],
            BenchTransport::Auto => &["--hosts", "2"],
        }
    }
}
