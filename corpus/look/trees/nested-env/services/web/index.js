console.log('web');
