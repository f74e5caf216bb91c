package dev.idempotency.autoconfigure.actuate;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.idempotency.autoconfigure.actuate.IdempotencyEndpoint.KeyLookup;
import dev.idempotency.autoconfigure.actuate.IdempotencyEndpoint.KeyReleaseOutcome;
import dev.idempotency.autoconfigure.actuate.IdempotencyEndpoint.StoreDescriptor;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyKeyInspector;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.core.KeyRecord;
import dev.idempotency.core.KeyRelease;

import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

import static dev.idempotency.autoconfigure.actuate.SectionResponses.audit;
import static dev.idempotency.autoconfigure.actuate.SectionResponses.badRequest;
import static dev.idempotency.autoconfigure.actuate.SectionResponses.notFound;
import static dev.idempotency.autoconfigure.actuate.SectionResponses.ok;

/**
 * {@code keys/{namespace}/{key}}: {@code GET} looks a key up in every store that is an
 * {@link IdempotencyKeyInspector}, {@code DELETE} releases it there ({@code ?force=true} also
 * releases a claim whose lease has not ended; refused, it is {@code 409}).
 */
final class KeysSection implements IdempotencyEndpointSection {

	private static final String USAGE = ": try keys/{namespace}/{key}";

	private final Map<String, IdempotencyStore> stores;

	/**
	 * Creates the section.
	 * @param stores the store beans by name
	 */
	KeysSection(Map<String, IdempotencyStore> stores) {
		this.stores = Collections.unmodifiableMap(new LinkedHashMap<>(stores));
	}

	@Override
	public String name() {
		return "keys";
	}

	/**
	 * The store beans, and whether each looks keys up.
	 * @return the stores by bean name
	 */
	Map<String, StoreDescriptor> stores() {
		Map<String, StoreDescriptor> stores = new LinkedHashMap<>();
		this.stores.forEach((name, store) -> stores.put(name,
				new StoreDescriptor(store.name(), store instanceof IdempotencyKeyInspector)));
		return stores;
	}

	@Override
	public WebEndpointResponse<Object> read(Request request) {
		if (request.path().size() != 2) {
			return notFound("No GET on '" + request.target() + "'" + USAGE);
		}
		String namespace = request.path().get(0);
		IdempotencyKey key = SectionResponses.key(namespace, request.path().get(1));
		if (key == null) {
			return badRequest("A namespace and a key are required");
		}
		Map<String, KeyRecord> found = new LinkedHashMap<>();
		inspectors().forEach((name, inspector) -> {
			KeyRecord record = inspector.inspect(key);
			if (record != null) {
				found.put(name, record);
			}
		});
		if (found.isEmpty()) {
			return notFound("No store holds key '" + key.value() + "' in namespace '" + namespace + "'");
		}
		return ok(new KeyLookup(namespace, key.value(), found));
	}

	@Override
	public WebEndpointResponse<Object> delete(Request request) {
		if (request.path().size() != 2) {
			return notFound("No DELETE on '" + request.target() + "'" + USAGE);
		}
		IdempotencyKey key = SectionResponses.key(request.path().get(0), request.path().get(1));
		if (key == null) {
			return badRequest("A namespace and a key are required");
		}
		boolean force = Boolean.TRUE.equals(request.parameter("force", Boolean.class));
		Map<String, KeyRelease> outcomes = new LinkedHashMap<>();
		inspectors().forEach((name, inspector) -> outcomes.put(name, inspector.release(key, force)));
		audit(request.securityContext(), "release of key '" + key.value() + "' in namespace '" + key.namespace()
				+ "'" + (force ? " (forced)" : "") + ": " + outcomes);
		KeyReleaseOutcome body = new KeyReleaseOutcome(key.namespace(), key.value(), force, outcomes);
		if (outcomes.containsValue(KeyRelease.REFUSED_IN_PROGRESS)) {
			return new WebEndpointResponse<>(body, SectionResponses.STATUS_CONFLICT);
		}
		if (!outcomes.containsValue(KeyRelease.RELEASED)) {
			return new WebEndpointResponse<>(body, WebEndpointResponse.STATUS_NOT_FOUND);
		}
		return ok(body);
	}

	private Map<String, IdempotencyKeyInspector> inspectors() {
		Map<String, IdempotencyKeyInspector> inspectors = new LinkedHashMap<>();
		this.stores.forEach((name, store) -> {
			if (store instanceof IdempotencyKeyInspector inspector) {
				inspectors.put(name, inspector);
			}
		});
		return inspectors;
	}

}
