package dev.idempotency.autoconfigure.actuate;

import java.security.Principal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.idempotency.autoconfigure.actuate.IdempotencyEndpointSection.Request;
import dev.idempotency.support.InMemoryIdempotencyStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How {@link IdempotencyEndpoint} hands each operation to the section its first selector names:
 * the path after the section (the rest of the path as one selector), the parameters given, the
 * caller of a write; unknown sections, sections of the same name, and the overview without the
 * built-in sections.
 */
@ExtendWith(OutputCaptureExtension.class)
class IdempotencyEndpointRoutingTests {

	private static final SecurityContext ADMIN = new SecurityContext() {

		@Override
		public Principal getPrincipal() {
			return () -> "admin";
		}

		@Override
		public boolean isUserInRole(String role) {
			return true;
		}

	};

	private final RecordingSection audit = new RecordingSection("audit");

	private final IdempotencyEndpoint endpoint = new IdempotencyEndpoint(
			List.of(new KeysSection(Map.of("store", new InMemoryIdempotencyStore())), this.audit));

	@Test
	void eachReadOperationPassesItsSelectorsAndTheParametersGiven() {
		this.endpoint.list("audit", "payments", null);
		this.endpoint.page("audit", "dead", 2, null);
		this.endpoint.lookup("audit", "kafka", new String[] { "orders", "eu" }, 5, 42L, null, null);
		this.endpoint.lookup("audit", "kafka", new String[0], null, null, null, "1-0");
		assertThat(this.audit.requests).containsExactly(
				new Request("audit", List.of(), Map.of("namespace", "payments"), SecurityContext.NONE),
				new Request("audit", List.of("dead"), Map.of("page", 2), SecurityContext.NONE),
				new Request("audit", List.of("kafka", "orders/eu"), Map.of("limit", 5, "fromOffset", 42L),
						SecurityContext.NONE),
				new Request("audit", List.of("kafka", ""), Map.of("fromId", "1-0"), SecurityContext.NONE));
		assertThat(this.audit.methods).containsOnly("read");
	}

	@Test
	void writesAndDeletesCarryTheCaller() {
		this.endpoint.redriveAll("audit", "dead", ADMIN);
		this.endpoint.act("audit", "dead", new String[] { "m-1" }, null, null, 1, null, ADMIN);
		this.endpoint.release("audit", "points", new String[] { "a", "b" }, true, ADMIN);
		assertThat(this.audit.requests).containsExactly(new Request("audit", List.of("dead"), Map.of(), ADMIN),
				new Request("audit", List.of("dead", "m-1"), Map.of("partition", 1), ADMIN),
				new Request("audit", List.of("points", "a/b"), Map.of("force", true), ADMIN));
		assertThat(this.audit.methods).containsExactly("write", "write", "delete");
	}

	@Test
	void anUnknownSectionIsNotFoundNamingTheKnownOnes() {
		WebEndpointResponse<Object> response = this.endpoint.lookup("outbox", "dead", new String[] { "m-1" }, null,
				null, null, null);
		assertThat(response.getStatus()).isEqualTo(404);
		assertThat(response.getBody())
			.isEqualTo(new IdempotencyEndpoint.Problem("No section 'outbox': try keys, audit"));
		assertThat(this.audit.requests).isEmpty();
	}

	@Test
	void aMethodASectionDoesNotAnswerIsNotFound() {
		IdempotencyEndpoint readOnly = new IdempotencyEndpoint(List.of(new IdempotencyEndpointSection() {

			@Override
			public String name() {
				return "read-only";
			}

		}));
		assertThat(readOnly.act("read-only", "a", new String[] { "b" }, null, null, null, null, ADMIN).getBody())
			.isEqualTo(new IdempotencyEndpoint.Problem("No POST on 'read-only/a/b'"));
	}

	@Test
	void ofTwoSectionsWithTheSameNameTheFirstAnswersAndTheOtherIsLogged(CapturedOutput output) {
		RecordingSection second = new RecordingSection("audit");
		IdempotencyEndpoint endpoint = new IdempotencyEndpoint(List.of(this.audit, second));
		endpoint.list("audit", null, null);
		assertThat(this.audit.requests).hasSize(1);
		assertThat(second.requests).isEmpty();
		assertThat(output).contains("section 'audit' of " + RecordingSection.class.getName() + " is ignored");
	}

	@Test
	void theOverviewDescribesTheBuiltInSectionsThatArePresent() {
		IdempotencyEndpoint.Overview overview = this.endpoint.overview();
		assertThat(overview.stores()).containsOnlyKeys("store");
		assertThat(overview.outbox()).isNull();
		assertThat(overview.parkedKeys()).isFalse();
		assertThat(overview.deadLetters()).isEmpty();
		assertThat(new IdempotencyEndpoint(List.of()).overview().stores()).isEmpty();
	}

	@Test
	void theEndpointIsReadOnlyByDefault() {
		assertThat(IdempotencyEndpoint.class
			.getAnnotation(org.springframework.boot.actuate.endpoint.annotation.Endpoint.class)
			.defaultAccess()).isEqualTo(Access.READ_ONLY);
	}

	static final class RecordingSection implements IdempotencyEndpointSection {

		private final String name;

		final List<Request> requests = new ArrayList<>();

		final List<String> methods = new ArrayList<>();

		RecordingSection(String name) {
			this.name = name;
		}

		@Override
		public String name() {
			return this.name;
		}

		@Override
		public WebEndpointResponse<Object> read(Request request) {
			return record("read", request);
		}

		@Override
		public WebEndpointResponse<Object> write(Request request) {
			return record("write", request);
		}

		@Override
		public WebEndpointResponse<Object> delete(Request request) {
			return record("delete", request);
		}

		private WebEndpointResponse<Object> record(String method, Request request) {
			this.methods.add(method);
			this.requests.add(request);
			return new WebEndpointResponse<>("ok", 200);
		}

	}

}
