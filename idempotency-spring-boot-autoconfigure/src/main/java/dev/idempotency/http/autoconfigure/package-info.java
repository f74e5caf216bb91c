/**
 * Auto-configuration of the HTTP transport ({@code idempotency.http.*}).
 */
@NullMarked
package dev.idempotency.http.autoconfigure;

import org.jspecify.annotations.NullMarked;
