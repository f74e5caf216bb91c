package dev.idempotency.autoconfigure.actuate;

import java.time.Duration;
import java.util.List;
import java.util.function.BiFunction;

import dev.idempotency.autoconfigure.actuate.IdempotencyEndpoint.ParkedDescriptor;
import dev.idempotency.autoconfigure.actuate.IdempotencyEndpoint.ParkedList;
import dev.idempotency.autoconfigure.actuate.IdempotencyEndpoint.ParkedOutcome;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.ParkedKey;
import dev.idempotency.core.ParkedKeys;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

import static dev.idempotency.autoconfigure.actuate.SectionResponses.audit;
import static dev.idempotency.autoconfigure.actuate.SectionResponses.badRequest;
import static dev.idempotency.autoconfigure.actuate.SectionResponses.notFound;
import static dev.idempotency.autoconfigure.actuate.SectionResponses.ok;

/**
 * {@code parked}: {@code GET ?namespace=&limit=} lists parked keys, {@code POST} and
 * {@code DELETE parked/{namespace}/{key}} mark one completed or release it; through
 * {@link ParkedKeys}.
 */
final class ParkedKeysSection implements IdempotencyEndpointSection {

	private static final String USAGE = ": try parked?namespace=&limit= or parked/{namespace}/{key}";

	private final @Nullable ParkedKeys parkedKeys;

	private final Duration retention;

	/**
	 * Creates the section.
	 * @param parkedKeys the parked keys' operations, or {@code null} when the store has none (every
	 * request is then {@code 404} saying so)
	 * @param retention how long a parked key marked completed is remembered
	 */
	ParkedKeysSection(@Nullable ParkedKeys parkedKeys, Duration retention) {
		this.parkedKeys = parkedKeys;
		this.retention = retention;
	}

	@Override
	public String name() {
		return "parked";
	}

	/**
	 * Whether parked keys are handled.
	 * @return {@code true} when the store has parked keys
	 */
	boolean handlesParkedKeys() {
		return this.parkedKeys != null;
	}

	@Override
	public WebEndpointResponse<Object> read(Request request) {
		if (!request.path().isEmpty()) {
			return notFound("No GET on '" + request.target() + "'" + USAGE);
		}
		ParkedKeys parked = this.parkedKeys;
		if (parked == null) {
			return noParkedKeys();
		}
		List<ParkedKey> keys = parked.parked(request.parameter("namespace", String.class),
				SectionResponses.bounded(request.parameter("limit", Integer.class)));
		return ok(new ParkedList(keys.stream().map(ParkedDescriptor::of).toList()));
	}

	@Override
	public WebEndpointResponse<Object> write(Request request) {
		return onParkedKey(request, "POST", (parked, key) -> {
			boolean completed = parked.markCompleted(key, this.retention);
			audit(request.securityContext(), "mark completed of parked key '" + key.value() + "' in namespace '"
					+ key.namespace() + "': " + (completed ? "completed" : "not parked"));
			return completed ? ok(new ParkedOutcome(key.namespace(), key.value(), "COMPLETED")) : notParked(key);
		});
	}

	@Override
	public WebEndpointResponse<Object> delete(Request request) {
		return onParkedKey(request, "DELETE", (parked, key) -> {
			boolean released = parked.release(key);
			audit(request.securityContext(), "release of parked key '" + key.value() + "' in namespace '"
					+ key.namespace() + "': " + (released ? "released" : "not parked"));
			return released ? ok(new ParkedOutcome(key.namespace(), key.value(), "RELEASED")) : notParked(key);
		});
	}

	/**
	 * Checks what a POST and a DELETE on {@code parked/{namespace}/{key}} both need (the path, a
	 * store with parked keys, a key) in that order, then acts on the key.
	 */
	private WebEndpointResponse<Object> onParkedKey(Request request, String method,
			BiFunction<ParkedKeys, IdempotencyKey, WebEndpointResponse<Object>> action) {
		if (request.path().size() != 2) {
			return notFound("No " + method + " on '" + request.target() + "'" + USAGE);
		}
		ParkedKeys parked = this.parkedKeys;
		if (parked == null) {
			return noParkedKeys();
		}
		IdempotencyKey key = SectionResponses.key(request.path().get(0), request.path().get(1));
		if (key == null) {
			return badRequest("A namespace and a key are required");
		}
		return action.apply(parked, key);
	}

	private static WebEndpointResponse<Object> noParkedKeys() {
		return notFound("The store handles no parked keys");
	}

	private static WebEndpointResponse<Object> notParked(IdempotencyKey key) {
		return notFound("Key '" + key.value() + "' in namespace '" + key.namespace() + "' is not parked");
	}

}
