package dev.idempotency.outbox.autoconfigure;

import java.util.List;

import dev.idempotency.autoconfigure.actuate.IdempotencyEndpoint.Backlog;
import dev.idempotency.autoconfigure.actuate.IdempotencyEndpoint.DeadMessage;
import dev.idempotency.autoconfigure.actuate.IdempotencyEndpoint.DeadPage;
import dev.idempotency.autoconfigure.actuate.IdempotencyEndpoint.Redriven;
import dev.idempotency.autoconfigure.actuate.OutboxBacklogSection;
import dev.idempotency.autoconfigure.actuate.SectionResponses;
import dev.idempotency.outbox.OutboxAdmin;
import dev.idempotency.outbox.OutboxBacklog;
import dev.idempotency.outbox.OutboxMessage;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

import static dev.idempotency.autoconfigure.actuate.SectionResponses.audit;
import static dev.idempotency.autoconfigure.actuate.SectionResponses.badRequest;
import static dev.idempotency.autoconfigure.actuate.SectionResponses.notFound;
import static dev.idempotency.autoconfigure.actuate.SectionResponses.ok;

/**
 * {@code outbox/dead}: {@code GET ?page=&size=} pages dead outbox messages, {@code POST} re-drives
 * all of them, {@code POST outbox/dead/{messageId}} one; through {@link OutboxAdmin}.
 */
final class OutboxSection implements OutboxBacklogSection {

	private static final String DEAD = "dead";

	private final @Nullable OutboxAdmin outbox;

	/**
	 * Creates the section.
	 * @param outbox the outbox's operations, or {@code null} without an outbox (every request is
	 * then {@code 404} saying so)
	 */
	OutboxSection(@Nullable OutboxAdmin outbox) {
		this.outbox = outbox;
	}

	@Override
	public String name() {
		return "outbox";
	}

	/**
	 * The outbox's backlog.
	 * @return the backlog, or {@code null} without an outbox
	 */
	@Override
	public @Nullable Backlog backlog() {
		if (this.outbox == null) {
			return null;
		}
		OutboxBacklog.Snapshot snapshot = this.outbox.backlog();
		return new Backlog(snapshot.pending(), snapshot.dead(), snapshot.oldestPendingAge());
	}

	@Override
	public WebEndpointResponse<Object> read(Request request) {
		if (request.path().size() != 1 || !DEAD.equals(request.path().get(0))) {
			return notFound("No GET on '" + request.target() + "': try outbox/dead");
		}
		OutboxAdmin admin = this.outbox;
		if (admin == null) {
			return notEnabled();
		}
		Integer page = request.parameter("page", Integer.class);
		int pageNumber = (page != null) ? page : 0;
		if (pageNumber < 0) {
			return badRequest("page must be at least 0");
		}
		int pageSize = SectionResponses.bounded(request.parameter("size", Integer.class));
		List<DeadMessage> messages = admin.findDead(pageNumber, pageSize)
			.stream()
			.map(OutboxSection::deadMessage)
			.toList();
		return ok(new DeadPage(pageNumber, pageSize, admin.backlog().dead(), messages));
	}

	@Override
	public WebEndpointResponse<Object> write(Request request) {
		List<String> path = request.path();
		if (path.isEmpty() || !DEAD.equals(path.get(0))) {
			return notFound("No POST on '" + request.target() + "': try outbox/dead or outbox/dead/{messageId}");
		}
		OutboxAdmin admin = this.outbox;
		if (admin == null) {
			return notEnabled();
		}
		if (path.size() == 1) {
			int redriven = admin.redriveDead();
			audit(request.securityContext(), "re-drive of every dead outbox message: " + redriven + " re-driven");
			return ok(new Redriven(redriven));
		}
		String messageId = path.get(1);
		if (messageId.isEmpty()) {
			return badRequest("A message id is required");
		}
		boolean redriven = admin.redrive(messageId);
		audit(request.securityContext(), "re-drive of dead outbox message '" + messageId + "': "
				+ (redriven ? "re-driven" : "no such dead message"));
		return redriven ? ok(new Redriven(1)) : notFound("No dead outbox message '" + messageId + "'");
	}

	private static DeadMessage deadMessage(OutboxMessage message) {
		return new DeadMessage(message.id(), message.messageId(), message.destination(), message.key(),
				message.attempts(), message.createdAt(), message.lastError());
	}

	private static WebEndpointResponse<Object> notEnabled() {
		return notFound("The outbox is not enabled (idempotency.outbox.enabled)");
	}

}
