/**
 * Auto-configuration of the Kafka share-group adapter ({@code idempotency.kafka.share.*}).
 */
@NullMarked
package dev.idempotency.kafka.share.autoconfigure;

import org.jspecify.annotations.NullMarked;
