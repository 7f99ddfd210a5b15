//! "Now", passed to the billing rules explicitly: the system clock in service,
//! a fixed instant in tests so that figures can be checked by hand.

use chrono::{DateTime, Utc};

#[derive(Clone, Copy, Debug, Default)]
pub enum Clock {
    #[default]
    System,
    Fixed(DateTime<Utc>),
}

impl Clock {
    pub fn now(&self) -> DateTime<Utc> {
        match self {
            Self::System => Utc::now(),
            Self::Fixed(at) => *at,
        }
    }
}
