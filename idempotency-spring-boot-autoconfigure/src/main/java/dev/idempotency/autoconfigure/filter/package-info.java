/**
 * Auto-configuration of the duplicate filter chain ({@code idempotency.filter.*}).
 */
@NullMarked
package dev.idempotency.autoconfigure.filter;

import org.jspecify.annotations.NullMarked;
