//! A folder of data sets (`--data-sets DIR`): each `NAME.json`, named by
//! `serve --data-set NAME` and by test mode's `POST /api/test/sandboxes`
//! (`"dataSet": "NAME"`). A name is a file name without a folder, so a request
//! cannot name a file outside it.

use std::path::{Path, PathBuf};

/// Names listed in an answer at most (a folder may hold many).
const NAMES_LISTED: usize = 50;
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

    /// The text of data set `name`, or why there is none (a sentence for a client).
    pub fn read(&self, name: &str) -> Result<String, String> {
        if !Self::is_name(name) {
            return Err("is not a data set name: 1-64 letters, digits, `_`, `-` or `.`".to_owned());
        }
        let path = self.0.join(format!("{name}.json"));
        match std::fs::metadata(&path) {
            Ok(meta) if meta.len() > MAX_FILE_BYTES => {
                Err(format!("names a file of {} bytes, over the {MAX_FILE_BYTES} a data set may have", meta.len()))
            }
            Ok(_) => std::fs::read_to_string(&path).map_err(|err| {
                tracing::warn!(path = %path.display(), error = %err, "reading a data set");
                "names a file the server cannot read".to_owned()
            }),
            Err(_) => Err(format!("names no data set; known: {}", self.names_listed())),
        }
    }

    /// The data sets here, sorted, at most `NAMES_LISTED`, as a sentence part.
    fn names_listed(&self) -> String {
        let mut names: Vec<String> = std::fs::read_dir(&self.0)
            .into_iter()
            .flatten()
            .filter_map(|entry| entry.ok()?.file_name().to_str()?.strip_suffix(".json").map(str::to_owned))
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
        assert_eq!(folder.read("two").unwrap_err(), "names no data set; known: `demo`, `empty`, `one`");
    }
}
