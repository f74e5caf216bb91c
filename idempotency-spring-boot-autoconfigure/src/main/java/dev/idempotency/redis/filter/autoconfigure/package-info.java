/**
 * Auto-configuration of the {@code redis-recent} layer of the duplicate filter chain.
 */
@NullMarked
package dev.idempotency.redis.filter.autoconfigure;

import org.jspecify.annotations.NullMarked;
