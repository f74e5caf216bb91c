package dev.idempotency.sample;

import java.util.ArrayList;
import java.util.List;

import dev.idempotency.autoconfigure.actuate.IdempotencyEndpoint;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.registry.HealthContributorRegistry;
import org.springframework.stereotype.Component;

/**
 * What an operator would see at the end of the demo, asked in-process (the demo is not a web
 * application): the dedup store's health ({@code /actuator/health/idempotencyStore}) and one key
 * looked up through the {@code idempotency} endpoint ({@code /actuator/idempotency/keys/...}), both
 * as the JSON those URLs answer.
 */
@Component
public class OperationsReport {

	/** The store's health indicator, as Actuator names it. */
	static final String STORE_HEALTH = "idempotencyStore";

	private final ObjectProvider<HealthContributorRegistry> health;

	private final ObjectProvider<IdempotencyEndpoint> endpoint;

	private final JsonMapper json;

	public OperationsReport(ObjectProvider<HealthContributorRegistry> health,
			ObjectProvider<IdempotencyEndpoint> endpoint, JsonMapper json) {
		this.health = health;
		this.endpoint = endpoint;
		this.json = json;
	}

	/**
	 * The store's health and the lookup of a key.
	 * @param namespace the key's namespace
	 * @param key the key, or {@code null} when the demo processed none
	 * @return the lines of the report
	 */
	public List<String> describe(String namespace, @Nullable String key) {
		List<String> lines = new ArrayList<>();
		lines.add("Operations (what /actuator/health and /actuator/idempotency answer):");
		lines.add("  GET /actuator/health/" + STORE_HEALTH + " -> store health: " + storeHealth());
		if (key != null) {
			lines.addAll(lookup(namespace, key));
		}
		return lines;
	}

	private String storeHealth() {
		HealthContributorRegistry registry = this.health.getIfAvailable();
		if (registry == null) {
			return "no health registry (spring-boot-health is not on the class path)";
		}
		HealthContributor contributor = registry.getContributor(STORE_HEALTH);
		return (contributor != null) ? describe(contributor) : "no '" + STORE_HEALTH + "' indicator";
	}

	private String describe(HealthContributor contributor) {
		if (contributor instanceof HealthIndicator indicator) {
			Health health = indicator.health(true);
			return health.getStatus().getCode() + " " + this.json.writeValueAsString(health.getDetails());
		}
		if (contributor instanceof CompositeHealthContributor composite) {
			List<String> parts = new ArrayList<>();
			composite.stream().forEach((entry) -> parts.add(entry.name() + "=" + describe(entry.contributor())));
			return parts.toString();
		}
		return contributor.getClass().getSimpleName();
	}

	/** The request line with the status, then the body as indented JSON. */
	private List<String> lookup(String namespace, String key) {
		String request = "  GET /actuator/idempotency/keys/" + namespace + "/" + key + " -> ";
		IdempotencyEndpoint endpoint = this.endpoint.getIfAvailable();
		if (endpoint == null) {
			return List.of(request + "no endpoint (expose it: management.endpoints.web.exposure.include=health,idempotency)");
		}
		WebEndpointResponse<Object> response = endpoint.lookup("keys", namespace, key.split("/", -1), null, null,
				null, null);
		String body = this.json.writerWithDefaultPrettyPrinter().writeValueAsString(response.getBody());
		return List.of(request + response.getStatus(), body.indent(4).stripTrailing());
	}

}
