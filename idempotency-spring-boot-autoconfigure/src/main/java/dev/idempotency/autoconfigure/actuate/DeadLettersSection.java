package dev.idempotency.autoconfigure.actuate;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

import static dev.idempotency.autoconfigure.actuate.SectionResponses.audit;
import static dev.idempotency.autoconfigure.actuate.SectionResponses.badRequest;
import static dev.idempotency.autoconfigure.actuate.SectionResponses.notFound;
import static dev.idempotency.autoconfigure.actuate.SectionResponses.ok;

/**
 * {@code dead-letters/{transport}/{name}?limit=&fromOffset=&partition=&fromId=}: {@code GET} shows
 * what a re-drive of a topic's or stream's dead letters would send (a dry run), {@code POST}
 * re-drives them; through the transport's {@link DeadLetterSource}.
 */
final class DeadLettersSection implements IdempotencyEndpointSection {

	private final Map<String, DeadLetterSource> sources;

	/**
	 * Creates the section.
	 * @param sources the transports whose dead letters can be listed and re-driven (the first of
	 * each {@link DeadLetterSource#transport()} wins)
	 */
	DeadLettersSection(List<? extends DeadLetterSource> sources) {
		Map<String, DeadLetterSource> byTransport = new LinkedHashMap<>();
		sources.forEach((source) -> byTransport.putIfAbsent(source.transport(), source));
		this.sources = Collections.unmodifiableMap(byTransport);
	}

	@Override
	public String name() {
		return "dead-letters";
	}

	/**
	 * The transports whose dead letters are handled.
	 * @return {@code kafka}, {@code redis}, or none
	 */
	List<String> transports() {
		return List.copyOf(this.sources.keySet());
	}

	@Override
	public WebEndpointResponse<Object> read(Request request) {
		return handle(request, "GET", null);
	}

	@Override
	public WebEndpointResponse<Object> write(Request request) {
		return handle(request, "POST", request.securityContext());
	}

	/**
	 * Previews ({@code securityContext} {@code null}) or re-drives dead letters.
	 */
	private WebEndpointResponse<Object> handle(Request request, String method,
			@Nullable SecurityContext securityContext) {
		if (request.path().size() != 2) {
			return notFound("No " + method + " on '" + request.target() + "': try dead-letters/{transport}/{name}");
		}
		String transport = request.path().get(0);
		DeadLetterSource source = this.sources.get(transport);
		if (source == null) {
			return notFound("No dead letters of '" + transport + "'"
					+ (this.sources.isEmpty() ? "" : ": try " + String.join(", ", this.sources.keySet()))
					+ " (Kafka needs a ConsumerFactory and a ProducerFactory, Redis the stream adapter)");
		}
		String destination = request.path().get(1);
		if (destination.isEmpty()) {
			return badRequest("A topic or stream is required: dead-letters/" + transport + "/{name}");
		}
		Long fromOffset = request.parameter("fromOffset", Long.class);
		if (fromOffset != null && fromOffset < 0) {
			return badRequest("fromOffset must be at least 0");
		}
		DeadLetterSource.Query query = new DeadLetterSource.Query(
				SectionResponses.bounded(request.parameter("limit", Integer.class)), fromOffset,
				request.parameter("partition", Integer.class), request.parameter("fromId", String.class));
		if (securityContext == null) {
			try {
				return ok(source.preview(destination, query));
			}
			catch (IllegalArgumentException ex) {
				return badRequest(String.valueOf(ex.getMessage()));
			}
		}
		String operation = "re-drive of " + transport + " dead letters of '" + destination + "' (" + query + "): ";
		try {
			Object report = source.redrive(destination, query);
			audit(securityContext, operation + report);
			return ok(report);
		}
		catch (IllegalArgumentException ex) {
			return badRequest(String.valueOf(ex.getMessage()));
		}
		catch (RuntimeException ex) {
			audit(securityContext, operation + "failed: " + ex);
			return SectionResponses.problem(String.valueOf(ex.getMessage()),
					WebEndpointResponse.STATUS_INTERNAL_SERVER_ERROR);
		}
	}

}
