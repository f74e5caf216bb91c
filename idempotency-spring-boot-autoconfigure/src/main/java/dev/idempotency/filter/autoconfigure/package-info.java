/**
 * Auto-configuration of the duplicate filter chain ({@code idempotency.filter.*}) and of its local
 * layers ({@code bloom}, {@code bitmap}).
 */
@NullMarked
package dev.idempotency.filter.autoconfigure;

import org.jspecify.annotations.NullMarked;
