/**
 * The outbox on a JDBC database: {@link dev.idempotency.outbox.jdbc.JdbcOutbox} inserts rows in the business
 * transaction, {@link dev.idempotency.outbox.jdbc.JdbcOutboxRepository} implements the
 * {@link dev.idempotency.outbox.OutboxRepository} contract, with one {@link dev.idempotency.outbox.jdbc.OutboxDialect}
 * per database family. The only outbox package that uses spring-jdbc.
 */
@NullMarked
package dev.idempotency.outbox.jdbc;

import org.jspecify.annotations.NullMarked;
