package dev.idempotency.autoconfigure.actuate;

import dev.idempotency.autoconfigure.actuate.IdempotencyEndpoint.Backlog;
import org.jspecify.annotations.Nullable;

/**
 * The section that also tells the endpoint's overview ({@code GET /actuator/idempotency}) the
 * outbox's backlog: the outbox's {@code outbox} section, which the outbox's auto-configuration adds,
 * so that the endpoint knows the outbox only through this interface and its {@link Backlog}.
 *
 * @since 0.2.0
 */
public interface OutboxBacklogSection extends IdempotencyEndpointSection {

	/**
	 * The outbox's backlog.
	 * @return the backlog, or {@code null} when the outbox is not enabled
	 */
	@Nullable Backlog backlog();

}
