/**
 * JDBC helpers shared by the dedup store and the outbox: the {@link dev.idempotency.support.jdbc.DatabasePlatform}
 * (detection and timestamp columns), the {@link dev.idempotency.support.jdbc.DatabasePlatformHolder} that already
 * knows it, {@link dev.idempotency.support.jdbc.SqlIdentifier} (table names spliced into
 * SQL) and {@link dev.idempotency.support.jdbc.BatchedPurge} (bounded deletes, each committed on its own).
 */
@NullMarked
package dev.idempotency.support.jdbc;

import org.jspecify.annotations.NullMarked;
