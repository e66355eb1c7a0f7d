//! A command's settings, read once: the project file around a start path
//! is found and parsed the first time a setting is asked for, and every
//! later question is answered from that one reading. A command that needs
//! no setting never reads the file (so a broken `strata.toml` fails only
//! the commands that use it, as each did when it read the file itself).

use std::cell::OnceCell;
use std::path::{Path, PathBuf};

use crate::{discover, ConfigError, ProjectConfig};

/// The settings of one command: already read (borrowed from whoever read
/// them), or found from a start path when first asked for.
#[derive(Debug)]
pub enum Settings<'a> {
    /// Read already, by whoever lends them.
    Read(&'a ProjectConfig),
    /// The nearest `strata.toml` in `start` (a module file or a directory)
    /// or above it, read the first time it is asked for (or already, when
    /// made by [`Settings::read`]).
    Around {
        start: PathBuf,
        /// Boxed: a borrowed reading is one pointer.
        read: Box<OnceCell<Result<ProjectConfig, ConfigError>>>,
    },
}

impl<'a> Settings<'a> {
    /// The settings of the nearest `strata.toml` in `start` or above it,
    /// not read yet.
    pub fn around(start: &Path) -> Settings<'a> {
        Settings::Around {
            start: start.to_path_buf(),
            read: Box::default(),
        }
    }

    /// Settings already read, owned.
    pub fn read(config: ProjectConfig) -> Settings<'a> {
        let start = config.dir().map(Path::to_path_buf).unwrap_or_default();
        Settings::Around {
            start,
            read: Box::new(OnceCell::from(Ok(config))),
        }
    }

    /// The settings, owned: read now if they were not yet.
    pub fn into_config(self) -> Result<ProjectConfig, ConfigError> {
        match self {
            Settings::Read(config) => Ok(config.clone()),
            Settings::Around { start, read } => {
                (*read).into_inner().unwrap_or_else(|| discover(&start))
            }
        }
    }

    /// The settings, read now if they were not yet; the same failure every
    /// time when the file cannot be used.
    pub fn get(&self) -> Result<&ProjectConfig, ConfigError> {
        match self {
            Settings::Read(config) => Ok(config),
            Settings::Around { start, read } => read
                .get_or_init(|| discover(start))
                .as_ref()
                .map_err(Clone::clone),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_once_and_only_when_asked() {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join(crate::FILE_NAME);
        std::fs::write(&file, "[run]\nonly-stale = true\n").expect("write");
        let settings = Settings::around(dir.path());
        assert!(settings.get().expect("valid").only_stale);
        // Changed on disk after the first reading: still the first reading.
        std::fs::write(&file, "[run]\nonly-stale = false\n").expect("write");
        assert!(settings.get().expect("valid").only_stale);
        // Never asked: never read, so a broken file fails nothing.
        std::fs::write(&file, "[nonsense]\n").expect("write");
        let _unread = Settings::around(dir.path());
        assert!(Settings::around(dir.path()).get().is_err());
    }
}
