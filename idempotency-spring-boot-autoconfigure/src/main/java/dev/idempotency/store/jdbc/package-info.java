/**
 * The JDBC store: the dedup record is inserted in the business transaction, so it commits or rolls
 * back with the business writes. One dialect per database family decides how "insert unless
 * present" is said without an exception.
 */
@NullMarked
package dev.idempotency.store.jdbc;

import org.jspecify.annotations.NullMarked;
