/**
 * Auto-configuration of the duplicate filter chain ({@code idempotency.filter.*}).
 */
@NullMarked
package dev.idempotency.filter.autoconfigure;

import org.jspecify.annotations.NullMarked;
