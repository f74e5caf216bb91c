/**
 * The share-group adapter's meters: {@code idempotency.share.*}.
 */
@NullMarked
package dev.idempotency.kafka.share.metrics;

import org.jspecify.annotations.NullMarked;
