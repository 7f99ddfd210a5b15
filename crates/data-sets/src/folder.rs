//! A folder of data sets (`--data-sets DIR`): each `NAME.json`, named by
//! `serve --data-set NAME` and by test mode's `POST /api/test/sandboxes`
//! (`"dataSet": "NAME"`). A name is a file name without a folder, so a request
//! cannot name a file outside it.

use std::path::{Path, PathBuf};

/// Names listed in an answer at most (a folder may hold many).
const NAMES_LISTED: usize = 50;

/// A name the folder has no data set of, as a client is told.
pub const NO_SUCH_DATA_SET: &str =
    "names no data set of this server: `demo`, `empty`, or the name of a file of its `--data-sets` folder";
/// Bytes a data set file may have. A file of the folder is the operator's
/// (a client only names it), so it may be larger than a request's body: a
/// snapshot of a busy tenant (the bank test's, 40 s of billing: about 30 MB).
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

#[derive(Clone, Debug)]
pub struct DataSetFolder(PathBuf);

impl DataSetFolder {
    /// The folder; an error naming the setting when it is not one.
    pub fn open(dir: &Path) -> anyhow::Result<Self> {
        anyhow::ensure!(
            dir.is_dir(),
            "{} is not a folder (--data-sets, SWITCHBOARD_DATA_SETS: a folder of NAME.json data sets)",
            dir.display()
        );
        Ok(Self(dir.to_owned()))
    }

    /// Whether `name` can name a data set here: 1-64 letters, digits, `_`,
    /// `-` and inner dots; no folder, no `..`.
    pub fn is_name(name: &str) -> bool {
        (1..=64).contains(&name.len())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
            && !name.starts_with('.')
            && !name.contains("..")
    }

    /// As `read`, a name the folder does not have listing the data sets it
    /// has: for the server's operator (`serve --data-set`), never a client (a
    /// shared server's folder may hold other teams' names).
    pub fn read_listing_names(&self, name: &str) -> Result<String, String> {
        self.read(name).map_err(|why| {
            if why == NO_SUCH_DATA_SET { format!("names no data set; known: {}", self.names_listed()) } else { why }
        })
    }

    /// The text of data set `name`, or why there is none (a sentence for a
    /// client: it names no other file of the folder).
    pub fn read(&self, name: &str) -> Result<String, String> {
        if !Self::is_name(name) {
            return Err("is not a data set name: 1-64 letters, digits, `_`, `-` or `.`".to_owned());
        }
        let path = self.0.join(format!("{name}.json"));
        // The entry itself, not what a link points at: only a regular file of
        // the folder is a data set. A link could lead out of the folder, and a
        // FIFO or a device would hold the request (and the server's graceful
        // shutdown) until something writes to it.
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if !meta.file_type().is_file() => {
                Err("names an entry of the folder that is not a regular file (a link, a pipe, a device)".to_owned())
            }
            Ok(meta) if meta.len() > MAX_FILE_BYTES => {
                Err(format!("names a file of {} bytes, over the {MAX_FILE_BYTES} a data set may have", meta.len()))
            }
            Ok(_) => read_at_most(&path, MAX_FILE_BYTES).map_err(|err| {
                tracing::warn!(path = %path.display(), error = %err, "reading a data set");
                "names a file the server cannot read, or one that grew past the size a data set may have".to_owned()
            }),
            Err(_) => Err(NO_SUCH_DATA_SET.to_owned()),
        }
    }

    /// The data sets here, sorted, at most `NAMES_LISTED`, as a sentence part.
    fn names_listed(&self) -> String {
        let mut names: Vec<String> = std::fs::read_dir(&self.0)
            .into_iter()
            .flatten()
            .filter_map(|entry| {
                let entry = entry.ok()?;
                // As `read`: regular files only.
                entry.file_type().ok()?.is_file().then_some(())?;
                entry.file_name().to_str()?.strip_suffix(".json").map(str::to_owned)
            })
            .filter(|name| Self::is_name(name))
            .collect();
        names.sort();
        let more = names.len().saturating_sub(NAMES_LISTED);
        names.truncate(NAMES_LISTED);
        let mut listed = ["`demo`", "`empty`"].map(str::to_owned).to_vec();
        listed.extend(names.iter().map(|name| format!("`{name}`")));
        match more {
            0 => listed.join(", "),
            n => format!("{} and {n} more", listed.join(", ")),
        }
    }
}

/// The text of `path`, refused past `limit` bytes (a file that grew since its
/// size was read).
fn read_at_most(path: &Path, limit: u64) -> std::io::Result<String> {
    use std::io::Read;
    let mut text = String::new();
    std::fs::File::open(path)?.take(limit + 1).read_to_string(&mut text)?;
    if text.len() as u64 > limit {
        return Err(std::io::Error::other("the file grew past its limit"));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_never_leaves_the_folder() {
        for bad in ["", "../secret", "a/b", ".hidden", "a..b", "x".repeat(65).as_str(), "a b", "%2e%2e"] {
            assert!(!DataSetFolder::is_name(bad), "{bad}");
        }
        for good in ["annual-11-months", "team_v2", "v1.2"] {
            assert!(DataSetFolder::is_name(good), "{good}");
        }
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("one.json"), "{}").unwrap();
        let folder = DataSetFolder::open(dir.path()).unwrap();
        assert_eq!(folder.read("one").unwrap(), "{}");
        assert_eq!(folder.read("two").unwrap_err(), NO_SUCH_DATA_SET, "a client is told no other name");
        assert_eq!(folder.read_listing_names("two").unwrap_err(), "names no data set; known: `demo`, `empty`, `one`");
    }

    #[test]
    fn only_a_regular_file_of_the_folder_is_a_data_set() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.json"), "{}").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.json"), dir.path().join("link.json")).unwrap();
        let made = std::process::Command::new("mkfifo").arg(dir.path().join("pipe.json")).status().unwrap();
        assert!(made.success());
        std::fs::write(dir.path().join("real.json"), "{}").unwrap();
        let folder = DataSetFolder::open(dir.path()).unwrap();
        // Answered at once: a pipe is never opened (it would wait for a writer).
        for name in ["link", "pipe"] {
            assert!(folder.read(name).unwrap_err().contains("not a regular file"), "{name}");
        }
        assert_eq!(folder.read("real").unwrap(), "{}");
        assert_eq!(folder.read_listing_names("none").unwrap_err(), "names no data set; known: `demo`, `empty`, `real`");
    }
}
