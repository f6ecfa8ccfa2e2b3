// answerwatch pixel, served whitespace-minified at /t.js. Embedded as
// <script async src="BASE/t.js" data-brand="TRACKING_CODE"></script>, it posts one beacon per page
// view (and per SPA navigation) to BASE/t/collect. No cookies, no storage; it never throws into the
// host page. Do-Not-Track / Global Privacy Control travel with the beacon: the server drops such
// visits for brands that ask for it.
(function (w, d) {
  try {
    var script = d.currentScript;
    var code = script && script.getAttribute("data-brand");
    // Once per page, even when the tag is pasted twice.
    if (!code || w.__answerwatch) return;
    w.__answerwatch = 1;
    var nav = w.navigator;
    var endpoint = new URL("/t/collect", script.src).href;
    var optOut = nav.doNotTrack == "1" || w.doNotTrack == "1" || nav.globalPrivacyControl === true;
    var last = "";
    var send = function () {
      try {
        var url = location.href.split("#")[0];
        if (url === last) return;
        // After an SPA navigation the referrer is the previous page, as a full page load would say.
        var body = JSON.stringify({
          brand: code,
          url: url,
          referrer: last || d.referrer,
          language: nav.language,
          screen: w.screen ? screen.width + "x" + screen.height : "",
          dnt: optOut,
        });
        last = url;
        // text/plain needs no CORS preflight; fetch with keepalive where sendBeacon is missing or refuses.
        if (!(nav.sendBeacon && nav.sendBeacon(endpoint, body)))
          fetch(endpoint, { method: "POST", body: body, keepalive: true, credentials: "omit", headers: { "content-type": "text/plain" } }).catch(function () {});
      } catch (e) {}
    };
    var history = w.history;
    var pushState = history.pushState;
    history.pushState = function () {
      var result = pushState.apply(this, arguments);
      send();
      return result;
    };
    w.addEventListener("popstate", send);
    send();
  } catch (e) {}
})(window, document);
