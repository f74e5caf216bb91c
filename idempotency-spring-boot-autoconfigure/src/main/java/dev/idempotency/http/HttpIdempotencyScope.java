package dev.idempotency.http;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.Principal;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

/**
 * Whose keys a request's {@code Idempotency-Key} belongs to: the caller (a user, a tenant, an API
 * client), so that one caller's key never replays another caller's response. The scope is written
 * before the header's key in the stored key ({@code <scope>:<key>}, the scope URL-encoded so that it
 * holds no {@code :}); requests without a scope share {@code :<key>}.
 * <p>
 * Declare a bean of this type to choose the scope (a tenant header checked by your own filter, an API
 * client id). The default is the authenticated principal's name: Spring Security's, when it is on the
 * class path ({@link SecurityContextScope}), else the servlet container's
 * ({@link HttpServletRequest#getUserPrincipal()}).
 *
 * @since 0.2.0
 */
@FunctionalInterface
public interface HttpIdempotencyScope {

	/**
	 * The scope of a request.
	 * @param request the request
	 * @return the scope, or {@code null} (or empty) for a request without one (anonymous)
	 */
	@Nullable String scopeOf(HttpServletRequest request);

	/**
	 * The scope of the servlet container's authenticated principal.
	 * @return the scope
	 */
	static HttpIdempotencyScope principal() {
		return (request) -> {
			Principal principal = request.getUserPrincipal();
			return (principal != null) ? principal.getName() : null;
		};
	}

	/**
	 * The key stored for a header key in a scope.
	 * @param scope the scope, or {@code null}
	 * @param key the header's key
	 * @return {@code <URL-encoded scope>:<key>}
	 */
	static String scopedKey(@Nullable String scope, String key) {
		String prefix = (scope != null) ? URLEncoder.encode(scope, StandardCharsets.UTF_8) : "";
		return prefix + ":" + key;
	}

}
