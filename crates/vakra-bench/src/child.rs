//! Spawning the command under test in its own process group, and stopping the whole group.

use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// A spawned command, leader of its own process group; the group is killed if this is dropped
/// before the leader was waited for.
pub struct Spawned {
    child: Child,
    group: Pid,
    reaped: bool,
}

impl Spawned {
    /// Spawns `command` (program and arguments) in a new process group, stderr discarded.
    pub fn spawn(command: &[String], stdin: Stdio, stdout: Stdio) -> Result<Self> {
        let Some((program, args)) = command.split_first() else {
            bail!("no command given (put it after `--`)");
        };
        let child = Command::new(program)
            .args(args)
            .stdin(stdin)
            .stdout(stdout)
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .with_context(|| format!("cannot start {program:?}"))?;
        let Some(pid) = child.id() else {
            bail!("{program:?} exited at once");
        };
        let group = Pid::from_raw(i32::try_from(pid).context("process id out of range")?);
        Ok(Self {
            child,
            group,
            reaped: false,
        })
    }

    /// The command's standard input, if it was piped and not taken yet.
    pub fn take_stdin(&mut self) -> Result<ChildStdin> {
        self.child
            .stdin
            .take()
            .context("the command's stdin is not piped")
    }

    /// The command's standard output, if it was piped and not taken yet.
    pub fn take_stdout(&mut self) -> Result<ChildStdout> {
        self.child
            .stdout
            .take()
            .context("the command's stdout is not piped")
    }

    /// The leader's exit status if it has already exited.
    pub fn try_wait(&mut self) -> Result<Option<ExitStatus>> {
        let status = self.child.try_wait().context("cannot poll the command")?;
        self.reaped |= status.is_some();
        Ok(status)
    }

    /// Sends `signal` (if any) to the group, waits up to `grace` for the leader to exit, and
    /// kills the group with SIGKILL if it has not.
    pub async fn stop(mut self, signal: Option<Signal>, grace: Duration) -> Result<ExitStatus> {
        if self.try_wait()?.is_none() {
            if let Some(signal) = signal {
                // ESRCH only means the group is already gone.
                let _ = killpg(self.group, signal);
            }
            if let Ok(status) = tokio::time::timeout(grace, self.child.wait()).await {
                self.reaped = true;
                return status.context("cannot wait for the command");
            }
            let _ = killpg(self.group, Signal::SIGKILL);
        }
        let status = self
            .child
            .wait()
            .await
            .context("cannot wait for the command")?;
        self.reaped = true;
        Ok(status)
    }
}

impl Drop for Spawned {
    fn drop(&mut self) {
        if !self.reaped {
            // The leader is not reaped, so its id still names this group.
            let _ = killpg(self.group, Signal::SIGKILL);
        }
    }
}
