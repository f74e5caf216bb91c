/**
 * Auto-configuration of the share-group adapter's meters.
 */
@NullMarked
package dev.idempotency.kafka.share.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;
