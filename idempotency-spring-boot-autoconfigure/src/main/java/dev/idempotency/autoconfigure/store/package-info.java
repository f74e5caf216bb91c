/**
 * Auto-configuration of the default {@code IdempotencyStore}: one public auto-configuration that
 * imports the JDBC, Redis and in-memory configurations in that order (the first that matches wins), the
 * store properties, the dedup table's schema initializer and the detector that orders its users after it.
 */
@NullMarked
package dev.idempotency.autoconfigure.store;

import org.jspecify.annotations.NullMarked;
