/**
 * The test host's sandbox proxy (MCP Apps spec 2026-01-26, "Sandbox proxy"):
 *
 * 1. sends `ui/notifications/sandbox-proxy-ready` to the host once it listens;
 * 2. on `ui/notifications/sandbox-resource-ready` {html, sandbox?, csp?,
 *    permissions?} from the host, creates the inner iframe (sandbox
 *    `allow-scripts allow-same-origin allow-forms` unless the host says
 *    otherwise) and writes the View's HTML into it; the inner document is the
 *    about:blank of this page, so it keeps this origin and this page's CSP
 *    (the HTTP header set by server.js from the resource's `_meta.ui.csp`);
 * 3. relays every other message both ways unchanged: from the host (its
 *    origin only) to the View, and from the View (this origin only) to the
 *    host, never those whose method starts with `ui/notifications/sandbox-`;
 *    it creates no request of its own.
 *
 * No library: this file runs under `script-src 'self'`.
 */
(function () {
  'use strict';
  var RESERVED = 'ui/notifications/sandbox-';
  var HOST_ORIGIN = document.querySelector('meta[name="molspace-host-origin"]').content;
  var OWN_ORIGIN = window.location.origin;
  var inner = null;

  if (window.parent === window) {
    throw new Error('The sandbox proxy runs only inside the host page.');
  }

  function methodOf(data) {
    return data !== null && typeof data === 'object' && typeof data.method === 'string' ? data.method : null;
  }

  function allowAttribute(permissions) {
    var allow = [];
    if (permissions && typeof permissions === 'object') {
      if (permissions.camera) allow.push('camera');
      if (permissions.microphone) allow.push('microphone');
      if (permissions.geolocation) allow.push('geolocation');
      if (permissions.clipboardWrite) allow.push('clipboard-write');
    }
    return allow.join('; ');
  }

  function load(params) {
    if (inner !== null) {
      console.error('[sandbox] a second sandbox-resource-ready was ignored: one View per proxy');
      return;
    }
    if (!params || typeof params.html !== 'string') {
      console.error('[sandbox] sandbox-resource-ready without html');
      return;
    }
    inner = document.createElement('iframe');
    inner.id = 'molspace-app-view';
    inner.setAttribute('sandbox', typeof params.sandbox === 'string' ? params.sandbox : 'allow-scripts allow-same-origin allow-forms');
    var allow = allowAttribute(params.permissions);
    if (allow) {
      inner.setAttribute('allow', allow);
    }
    document.body.appendChild(inner);
    // document.write keeps the inner document on this origin under this page's CSP
    // (srcdoc would too, but an opaque origin breaks WebGL readback in some engines).
    var doc = inner.contentDocument;
    doc.open();
    doc.write(params.html);
    doc.close();
  }

  window.addEventListener('message', function (event) {
    var method = methodOf(event.data);
    if (event.source === window.parent) {
      if (event.origin !== HOST_ORIGIN) {
        console.error('[sandbox] refused a message from ' + event.origin + ' (host is ' + HOST_ORIGIN + ')');
        return;
      }
      if (method !== null && method.indexOf(RESERVED) === 0) {
        if (method === RESERVED + 'resource-ready') {
          load(event.data.params);
        }
        return;
      }
      if (inner !== null && inner.contentWindow) {
        inner.contentWindow.postMessage(event.data, OWN_ORIGIN);
      }
    } else if (inner !== null && event.source === inner.contentWindow) {
      if (event.origin !== OWN_ORIGIN) {
        console.error('[sandbox] refused a message from the View at ' + event.origin);
        return;
      }
      if (method !== null && method.indexOf(RESERVED) === 0) {
        console.error('[sandbox] refused ' + method + ' from the View: reserved for the proxy');
        return;
      }
      window.parent.postMessage(event.data, HOST_ORIGIN);
    }
  });

  window.parent.postMessage({ jsonrpc: '2.0', method: RESERVED + 'proxy-ready', params: {} }, HOST_ORIGIN);
})();
