/**
 * Kafka adapter: binds each record to the delivery context, acknowledges manual-ack listeners after
 * commit, retries then dead-letters failed records, and checks at start-up that the dedup retention
 * of {@code @Idempotent} listeners covers their topics' retention.
 */
@NullMarked
package dev.idempotency.kafka;

import org.jspecify.annotations.NullMarked;
