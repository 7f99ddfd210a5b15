//! Refresh tokens rotate: each is used once, and a second use of one revokes its
//! family (RFC 9700, 4.14). Also forgets the idempotency fingerprints written
//! before they were keyed: those were bare SHA-256 hashes of bodies that may hold
//! card data (the keys' replays are lost for at most their 24 hours).

use crate::{prelude::*, schema::*};

pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        manager
            .create_table(
                Table::create()
                    .table("refresh_tokens")
                    .col(uuid("id").primary_key())
                    // The tokens one sign-in led to: a reused token revokes them all.
                    .col(uuid("family_id"))
                    .col(uuid("account_id"))
                    // `live` until redeemed once, then `used`.
                    .col(string_len("state", 8))
                    .col(timestamp_with_time_zone("expires_time"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create().name("ix_refresh_tokens_family_id").table("refresh_tokens").col("family_id").to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("ix_refresh_tokens_expires_time")
                    .table("refresh_tokens")
                    .col("expires_time")
                    .to_owned(),
            )
            .await?;
        manager.exec_stmt(Query::delete().from_table("idempotency_keys").to_owned()).await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), MigrationError> {
        manager.drop_table(Table::drop().table("refresh_tokens").to_owned()).await
    }
}
