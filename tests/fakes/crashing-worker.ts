// A worker entry that dies as it loads (as a broken build would), for the pool's back-off test.
throw new Error("this worker cannot start");
