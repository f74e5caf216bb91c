package dev.idempotency.autoconfigure.actuate;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * One concern of the {@code idempotency} endpoint: the requests whose first path segment after
 * {@code /actuator/idempotency} is its {@link #name()} ({@code keys}, {@code outbox},
 * {@code parked}, {@code dead-letters}). {@link IdempotencyEndpoint} receives every section bean
 * and routes each request to one; a bean of the application's own adds a section (the first
 * section of a name, in bean order, answers it). A method a section does not answer, or a path it
 * does not know, is {@code 404} with a {@link IdempotencyEndpoint.Problem} saying so.
 *
 * @since 0.2.0
 */
public interface IdempotencyEndpointSection {

	/**
	 * The path segment this section answers to.
	 * @return the section's name, such as {@code keys}
	 */
	String name();

	/**
	 * Answers a {@code GET}.
	 * @param request the path after the section and the query parameters
	 * @return the response; {@code 404} by default
	 */
	default WebEndpointResponse<Object> read(Request request) {
		return SectionResponses.notFound("No GET on '" + request.target() + "'");
	}

	/**
	 * Answers a {@code POST} (only when the endpoint's access allows writes).
	 * @param request the path after the section, the query parameters and the caller
	 * @return the response; {@code 404} by default
	 */
	default WebEndpointResponse<Object> write(Request request) {
		return SectionResponses.notFound("No POST on '" + request.target() + "'");
	}

	/**
	 * Answers a {@code DELETE} (only when the endpoint's access allows writes).
	 * @param request the path after the section, the query parameters and the caller
	 * @return the response; {@code 404} by default
	 */
	default WebEndpointResponse<Object> delete(Request request) {
		return SectionResponses.notFound("No DELETE on '" + request.target() + "'");
	}

	/**
	 * A request to a section.
	 * @param section the section's name, as the path gave it
	 * @param path the path's selectors after the section: none, one, or two; of two, the second
	 * is every remaining segment joined with {@code /} (a key containing {@code /}), empty when
	 * there is none
	 * @param parameters the query parameters the request gave (never {@code null} values), converted
	 * to the types the endpoint declares: {@code namespace} and {@code fromId} strings;
	 * {@code limit}, {@code page}, {@code size} and {@code partition} integers; {@code fromOffset} a
	 * long; {@code force} a boolean
	 * @param securityContext the caller, for the audit log; {@link SecurityContext#NONE} for a read
	 */
	record Request(String section, List<String> path, Map<String, Object> parameters,
			SecurityContext securityContext) {

		/**
		 * Creates a request.
		 * @param section the section's name
		 * @param path the path's selectors after the section
		 * @param parameters the query parameters given
		 * @param securityContext the caller
		 */
		public Request {
			path = List.copyOf(path);
			parameters = Map.copyOf(parameters);
		}

		/**
		 * Creates a request from the parameters an operation received, leaving out those that
		 * were not given.
		 * @param section the section's name
		 * @param path the path's selectors after the section
		 * @param securityContext the caller
		 * @param namesAndValues each parameter's name followed by its value or {@code null}
		 * @return the request
		 */
		static Request of(String section, List<String> path, SecurityContext securityContext,
				@Nullable Object... namesAndValues) {
			Map<String, Object> parameters = new LinkedHashMap<>();
			for (int i = 0; i < namesAndValues.length; i += 2) {
				Object value = namesAndValues[i + 1];
				if (value != null) {
					parameters.put((String) namesAndValues[i], value);
				}
			}
			return new Request(section, path, parameters, securityContext);
		}

		/**
		 * A query parameter.
		 * @param <T> the parameter's type
		 * @param name the parameter's name
		 * @param type the parameter's type
		 * @return the value, or {@code null} when the request did not give it
		 */
		public <T> @Nullable T parameter(String name, Class<T> type) {
			return type.cast(this.parameters.get(name));
		}

		/**
		 * The path after the endpoint's id, for messages.
		 * @return the section and its selectors, such as {@code outbox/dead}
		 */
		public String target() {
			return this.path.isEmpty() ? this.section : this.section + "/" + String.join("/", this.path);
		}

	}

}
